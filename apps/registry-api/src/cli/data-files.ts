import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { exportFiles, ExportTargetError } from '../loader/exporter';
import { importFiles, LoadTimeoutError } from '../loader/importer';
import { FileFormat, LoadFileError, resolveLoadFiles } from '../loader/load-files';
import {
  countsLine,
  failureSummary,
  formatProblem,
  progressPrinter,
  REPORT_HEADER,
  reportRow,
} from '../loader/load-report';
import { StagingMode } from '../loader/staging-sink';
import { exportManifest, manifestSigningKey, manifestTargetProblem, writeManifest } from './export-manifest';

export interface CommandContext {
  databaseUrl(): string;
  usageError(message: string): Error;
}

async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url, application_name: 'registry-api loader' });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const DEFAULT_TIMEOUT_SECONDS = '3600';

/**
 * `import <dir|file…> [--report FILE] [--max-errors N] [--quiet] [--staging copy|insert] [--timeout SECONDS]`;
 * exit 1 when the load fails.
 */
export async function importCommand(argv: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      report: { type: 'string' },
      'max-errors': { type: 'string' },
      quiet: { type: 'boolean', default: false },
      staging: { type: 'string' },
      timeout: { type: 'string', default: DEFAULT_TIMEOUT_SECONDS },
    },
  });
  if (positionals.length === 0) throw context.usageError('import needs a directory or files to load');
  const maxErrors = values['max-errors'] === undefined ? 50 : Number(values['max-errors']);
  if (!Number.isSafeInteger(maxErrors) || maxErrors < 0)
    throw context.usageError('--max-errors must be a whole number');
  const staging = values.staging;
  if (staging !== undefined && staging !== 'copy' && staging !== 'insert')
    throw context.usageError('--staging must be copy or insert');
  const timeoutMs = Math.round(Number(values.timeout) * 1000);
  if (!/^\d+(\.\d+)?$/.test(values.timeout) || timeoutMs < 1 || timeoutMs > 2_147_483_647)
    throw context.usageError('--timeout must be a number of seconds (at most 2147483)');
  let files;
  try {
    files = resolveLoadFiles(positionals);
  } catch (error) {
    if (error instanceof LoadFileError) throw context.usageError(error.message);
    throw error;
  }
  const url = context.databaseUrl();
  const report =
    values.report === undefined ? undefined : createWriteStream(values.report, { encoding: 'utf8' });
  const started = Date.now();
  try {
    report?.write(REPORT_HEADER);
    const result = await withClient(url, (client) =>
      importFiles(client, files, {
        staging: staging as StagingMode | undefined,
        timeoutMs,
        problemLimit: maxErrors,
        onEveryProblem: report
          ? async (problem) => {
              if (!report.write(reportRow(problem))) await once(report, 'drain');
            }
          : undefined,
        onProgress: progressPrinter(process.stderr, values.quiet),
      }),
    ).catch((error: unknown) => {
      if (!(error instanceof LoadTimeoutError)) throw error;
      return undefined;
    });
    if (result === undefined) {
      process.stderr.write(
        `import failed: timed out after ${values.timeout} s (--timeout ${values.timeout}); nothing was written\n`,
      );
      return 1;
    }
    if (!result.ok) {
      for (const problem of result.problems) process.stderr.write(`${formatProblem(problem)}\n`);
      process.stderr.write(
        `${failureSummary(result.problemCount, result.badRows, result.problems.length, values.report)}\n`,
      );
      return 1;
    }
    for (const counts of result.counts) process.stdout.write(`${countsLine(counts)}\n`);
    const rows = result.counts.reduce((sum, counts) => sum + counts.rows, 0);
    if (!values.quiet) {
      const how =
        result.stagingMode === 'copy'
          ? 'staged by COPY'
          : 'staged by batched INSERTs: COPY FROM STDIN is not available';
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stderr.write(`loaded ${rows.toLocaleString('en-US')} rows in ${seconds} s (${how})\n`);
    }
    return 0;
  } finally {
    if (report) {
      report.end();
      await once(report, 'close');
    }
  }
}

/** `export <dir> [--format csv|ndjson]`: every entity into `<dir>/<entity>.<format>`, replacing files of those names. */
export async function exportCommand(argv: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { format: { type: 'string', default: 'csv' }, quiet: { type: 'boolean', default: false } },
  });
  if (positionals.length !== 1) throw context.usageError('export needs exactly one directory');
  if (values.format !== 'csv' && values.format !== 'ndjson')
    throw context.usageError('--format must be csv or ndjson');
  const format: FileFormat = values.format;
  const signingKey = manifestSigningKey();
  const manifestProblem = manifestTargetProblem(positionals[0]!);
  if (manifestProblem !== undefined) {
    process.stderr.write(`${manifestProblem}\nexport failed: nothing was written\n`);
    return 1;
  }
  let summaries;
  try {
    summaries = await withClient(context.databaseUrl(), (client) =>
      exportFiles(client, positionals[0]!, format, (summary) => {
        if (!values.quiet)
          process.stderr.write(`wrote ${summary.file}: ${summary.rows.toLocaleString('en-US')} rows\n`);
      }),
    );
  } catch (error) {
    if (!(error instanceof ExportTargetError)) throw error;
    for (const problem of error.problems) process.stderr.write(`${problem}\n`);
    process.stderr.write('export failed: nothing was written\n');
    return 1;
  }
  const manifest = writeManifest(positionals[0]!, exportManifest(summaries, signingKey));
  if (!values.quiet)
    process.stderr.write(
      signingKey
        ? `wrote ${manifest}, signed with key ${signingKey.publicJwk.kid}\n`
        : `wrote ${manifest}, unsigned: SIGNING_KEY is unset\n`,
    );
  for (const summary of summaries) process.stdout.write(`${summary.file}\n`);
  process.stdout.write(`${manifest}\n`);
  return 0;
}
