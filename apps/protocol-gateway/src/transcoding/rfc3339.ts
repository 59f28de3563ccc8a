const SECONDS_PER_DAY = 86_400;
// Days from 0000-03-01 to 1970-01-01 in the proleptic Gregorian calendar.
const EPOCH_SHIFT = 719_468;
const DAYS_PER_ERA = 146_097; // 400 years

function twoDigits(value: number): string {
  return value < 10 ? `0${value}` : String(value);
}

/**
 * `yyyy-mm-ddThh:mm:ss` of whole seconds since the Unix epoch, in UTC, for years 0001–9999: the first 19 characters
 * of `new Date(seconds * 1000).toISOString()`, computed with integer arithmetic (Howard Hinnant's civil_from_days)
 * because building a Date and formatting it costs several times as much, once per Timestamp of every response.
 */
export function utcDateTime(seconds: number): string {
  const days = Math.floor(seconds / SECONDS_PER_DAY);
  const timeOfDay = seconds - days * SECONDS_PER_DAY;
  const shifted = days + EPOCH_SHIFT;
  const era = Math.floor(shifted / DAYS_PER_ERA);
  const dayOfEra = shifted - era * DAYS_PER_ERA;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  // Months counted from March, so that the leap day is the last day of the year.
  const marchMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * marchMonth + 2) / 5) + 1;
  const month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hour = Math.floor(timeOfDay / 3600);
  const minute = Math.floor((timeOfDay - hour * 3600) / 60);
  const second = timeOfDay - hour * 3600 - minute * 60;
  return `${String(year).padStart(4, '0')}-${twoDigits(month)}-${twoDigits(day)}T${twoDigits(hour)}:${twoDigits(minute)}:${twoDigits(second)}`;
}
