// Every test tier runs in UTC so dates render the same on every machine.
process.env.TZ = 'UTC';
