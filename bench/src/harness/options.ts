export const SERVICES = ['registry', 'loader', 'ussd', 'protocol', 'framework'] as const;
export type ServiceName = (typeof SERVICES)[number];

export interface BenchOptions {
  mode: 'smoke' | 'default' | 'long';
  durationS: number;
  warmupS: number;
  only: ServiceName[];
  /** Households of the registry's base data set; the growth pass seeds `households × scale`. */
  households: number;
  scale: number;
  /** Fuel readings of the loader benchmark (`cli.js import` against a bare COPY of the same file). */
  readings: number;
  /** Registry and protocol connections; USSD runs `sessions` parallel sessions instead. */
  connections: number;
  sessions: number;
  /** Keep seeded registry databases as templates between runs (seeding 10× the data takes minutes). */
  seedCache: boolean;
  /** Drop every cached seed and exit. */
  clearSeedCache: boolean;
  /** Run the services under `node --cpu-prof` and summarise where their CPU time went. */
  profile: boolean;
  /** Only workloads whose name contains one of these (case-insensitive); all when empty. */
  filters: string[];
  /** Extra environment for every service (not the floors), for what-if runs such as LOG_LEVEL=warn. */
  serviceEnv: Record<string, string>;
  jsonOut?: string;
  markdownOut?: string;
  help: boolean;
}

/**
 * Shortest measured pass of a row that counts completed sessions, outside smoke mode. At saturation a PIN session
 * lasts seconds (its hash waits in a queue); a one-second pass of sessions that all start together counts only that
 * first burst, not the steady state either side settles into.
 */
export const SESSION_PASS_MIN_S = 5;

const PRESETS: Record<
  BenchOptions['mode'],
  Pick<BenchOptions, 'durationS' | 'warmupS' | 'households' | 'readings' | 'connections' | 'sessions'>
> = {
  // About a second per benchmark (half on the floor, half on the service) on tiny data: keeps the harness honest
  // inside the test suite.
  smoke: { durationS: 0.5, warmupS: 0, households: 300, readings: 3000, connections: 4, sessions: 8 },
  // The whole suite in under five minutes on a 2-core machine.
  default: {
    durationS: 2,
    warmupS: 0.5,
    households: 100_000,
    readings: 1_000_000,
    connections: 16,
    sessions: 64,
  },
  long: {
    durationS: 20,
    warmupS: 5,
    households: 100_000,
    readings: 1_000_000,
    connections: 16,
    sessions: 64,
  },
};

export const USAGE = `Usage: npm run bench -- [options]

  --smoke             about a second per benchmark on tiny data (what the test suite runs)
  --long              20 s per measurement after 5 s warm-up (default: 2 s after 0.5 s)
  --duration <s>      seconds per measurement          --warmup <s>   seconds of warm-up
  --only <list>       comma-separated subset of: ${SERVICES.join(', ')}
  --households <n>    registry base data set (default 100000; the growth pass uses n × scale; the loader
                      takes its readings from the same seed)
  --readings <n>      fuel readings the loader benchmark loads (default 1000000; smoke 3000)
  --scale <k>         growth factor for the registry aggregates and collection first pages (default 10)
  --connections <n>   HTTP connections for registry and protocol (default 16)
  --sessions <n>      parallel USSD sessions (default 64)
  --no-seed-cache     seed the registry databases afresh and drop them at the end (default: the seeded data
                      is kept as a template database per size and reused while the registry's migrations and
                      seeder are unchanged; smoke runs never cache)
  --clear-seed-cache  drop every cached seed database and exit
  --profile           run the services under node --cpu-prof; prints where their CPU time went (profiling
                      slows them down: read the ratios of a run without it)
  --filter <text>     only workloads whose name contains <text> (repeatable), e.g. --filter stats; a <text>
                      ending in $ matches the end of the name: --filter 'devices/status$' leaves out its /list
  --service-env N=V   extra environment for every service, not the floors (repeatable), for what-if runs
                      such as --service-env LOG_LEVEL=warn
  --json <file>       also write every number as JSON
  --markdown <file>   also write the Markdown table
  --help

Environment: BENCH_PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres),
BENCH_REDIS_URL (default redis://127.0.0.1:6379/0), BENCH_DB_PREFIX (default dmrv_bench_),
BENCH_REDIS_PREFIX (default dmrv_bench:).`;

function positive(flag: string, raw: string | undefined, integer: boolean): number {
  const value = Number(raw);
  if (
    raw === undefined ||
    raw.trim() === '' ||
    !Number.isFinite(value) ||
    value < 0 ||
    (integer && !Number.isInteger(value))
  ) {
    throw new Error(
      `${flag} needs a ${integer ? 'whole' : ''} number ≥ 0, got ${raw ?? 'nothing'}`.replace('  ', ' '),
    );
  }
  return value;
}

/** Pure: command-line arguments to options; throws naming the bad flag. */
export function parseOptions(argv: string[]): BenchOptions {
  const mode = argv.includes('--smoke') ? 'smoke' : argv.includes('--long') ? 'long' : 'default';
  if (argv.includes('--smoke') && argv.includes('--long'))
    throw new Error('--smoke and --long exclude each other');
  const options: BenchOptions = {
    mode,
    ...PRESETS[mode],
    only: [...SERVICES],
    scale: 10,
    // Tiny smoke data seeds in seconds; caching it would only leave databases behind.
    seedCache: mode !== 'smoke',
    clearSeedCache: false,
    profile: false,
    serviceEnv: {},
    filters: [],
    help: false,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i]!;
    const next = (): string | undefined => argv[++i];
    switch (flag) {
      case '--smoke':
      case '--long':
        break;
      case '--help':
      case '-h':
        options.help = true;
        break;
      case '--duration':
        options.durationS = positive(flag, next(), false);
        if (options.durationS === 0) throw new Error('--duration must be above 0');
        break;
      case '--warmup':
        options.warmupS = positive(flag, next(), false);
        break;
      case '--households':
        options.households = positive(flag, next(), true);
        break;
      case '--readings':
        options.readings = Math.max(1, positive(flag, next(), true));
        break;
      case '--scale':
        options.scale = positive(flag, next(), true);
        break;
      case '--connections':
        options.connections = Math.max(1, positive(flag, next(), true));
        break;
      case '--sessions':
        options.sessions = Math.max(1, positive(flag, next(), true));
        break;
      case '--only': {
        const names = (next() ?? '')
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean);
        const unknown = names.filter((name) => !(SERVICES as readonly string[]).includes(name));
        if (names.length === 0 || unknown.length > 0)
          throw new Error(
            `--only takes a list of ${SERVICES.join(', ')}; got ${unknown.join(', ') || 'nothing'}`,
          );
        options.only = names as ServiceName[];
        break;
      }
      case '--no-seed-cache':
        options.seedCache = false;
        break;
      case '--clear-seed-cache':
        options.clearSeedCache = true;
        break;
      case '--profile':
        options.profile = true;
        break;
      case '--filter': {
        const text = next();
        if (!text) throw new Error('--filter needs a part of a workload name, e.g. stats or "log in"');
        options.filters.push(text.toLowerCase());
        break;
      }
      case '--service-env': {
        const pair = next() ?? '';
        const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(pair);
        if (!match) throw new Error(`--service-env takes NAME=value, got ${pair || 'nothing'}`);
        options.serviceEnv[match[1]!] = match[2]!;
        break;
      }
      case '--json':
        options.jsonOut = next();
        if (!options.jsonOut) throw new Error('--json needs a file name');
        break;
      case '--markdown':
        options.markdownOut = next();
        if (!options.markdownOut) throw new Error('--markdown needs a file name');
        break;
      default:
        throw new Error(`unknown option ${flag} (see --help)`);
    }
  }
  return options;
}
