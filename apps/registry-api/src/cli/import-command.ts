import { once } from 'node:events';
import { createWriteStream, WriteStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { ImportResult } from '../loader/import-result';
import { importFiles, LoadTimeoutError } from '../loader/importer';
import { LoadFile, LoadFileError, resolveLoadFiles } from '../loader/load-files';
import {
  countsLine,
  failureSummary,
  formatProblem,
  progressPrinter,
  REPORT_HEADER,
  reportRow,
} from '../loader/load-report';
import { StagingMode } from '../loader/staging-sink';
import { CommandContext, withClient } from './command-context';

const DEFAULT_TIMEOUT_SECONDS = '3600';

/** The `import` command line, checked. */
interface ImportRequest {
  files: LoadFile[];
  reportPath: string | undefined;
  maxErrors: number;
  quiet: boolean;
  staging: StagingMode | undefined;
  /** `--timeout` as given, for the message when the load runs past it. */
  timeoutSeconds: string;
  timeoutMs: number;
}

function parseImportRequest(argv: string[], context: CommandContext): ImportRequest {
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
  const { report: reportPath, quiet, timeout: timeoutSeconds } = values;
  return { files, reportPath, maxErrors, quiet, staging, timeoutSeconds, timeoutMs };
}

/** The load's result, or undefined when it ran past `--timeout`. */
async function runImport(
  url: string,
  request: ImportRequest,
  report: WriteStream | undefined,
): Promise<ImportResult | undefined> {
  return withClient(url, (client) =>
    importFiles(client, request.files, {
      staging: request.staging,
      timeoutMs: request.timeoutMs,
      problemLimit: request.maxErrors,
      onEveryProblem: report
        ? async (problem) => {
            if (!report.write(reportRow(problem))) await once(report, 'drain');
          }
        : undefined,
      onProgress: progressPrinter(process.stderr, request.quiet),
    }),
  ).catch((error: unknown) => {
    if (!(error instanceof LoadTimeoutError)) throw error;
    return undefined;
  });
}

/** Prints the outcome: the problems on stderr, or the counts on stdout (and the time it took); the exit code. */
function printOutcome(result: ImportResult | undefined, request: ImportRequest, started: number): number {
  if (result === undefined) {
    const timeout = request.timeoutSeconds;
    process.stderr.write(
      `import failed: timed out after ${timeout} s (--timeout ${timeout}); nothing was written\n`,
    );
    return 1;
  }
  if (!result.ok) {
    for (const problem of result.problems) process.stderr.write(`${formatProblem(problem)}\n`);
    process.stderr.write(
      `${failureSummary(result.problemCount, result.badRows, result.problems.length, request.reportPath)}\n`,
    );
    return 1;
  }
  for (const counts of result.counts) process.stdout.write(`${countsLine(counts)}\n`);
  const rows = result.counts.reduce((sum, counts) => sum + counts.rows, 0);
  if (!request.quiet) {
    const how =
      result.stagingMode === 'copy'
        ? 'staged by COPY'
        : 'staged by batched INSERTs: COPY FROM STDIN is not available';
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    process.stderr.write(`loaded ${rows.toLocaleString('en-US')} rows in ${seconds} s (${how})\n`);
  }
  return 0;
}

/**
 * `import <dir|file…> [--report FILE] [--max-errors N] [--quiet] [--staging copy|insert] [--timeout SECONDS]`;
 * exit 1 when the load fails.
 */
export async function importCommand(argv: string[], context: CommandContext): Promise<number> {
  const request = parseImportRequest(argv, context);
  const url = context.databaseUrl();
  const report =
    request.reportPath === undefined
      ? undefined
      : createWriteStream(request.reportPath, { encoding: 'utf8' });
  const started = Date.now();
  try {
    report?.write(REPORT_HEADER);
    return printOutcome(await runImport(url, request, report), request, started);
  } finally {
    if (report) {
      report.end();
      await once(report, 'close');
    }
  }
}
