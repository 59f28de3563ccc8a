import { csvField } from './csv-cells';
import type { EntityCounts, LoadProblem, LoadProgress } from './import-result';

const MAX_SHOWN_VALUE = 80;

/** `households.csv:4: density "huge": must be one of low, medium, high` — file, line, column, value, rule. */
export function formatProblem(problem: LoadProblem): string {
  const value =
    problem.value.length > MAX_SHOWN_VALUE ? `${problem.value.slice(0, MAX_SHOWN_VALUE)}…` : problem.value;
  const where =
    problem.column === '' ? '' : ` ${problem.column}${value === '' ? '' : ` ${JSON.stringify(value)}`}:`;
  return `${problem.file}:${problem.line}:${where} ${problem.rule}`;
}

export const REPORT_HEADER = 'file,line,column,value,rule\r\n';

/** One row of `--report errors.csv`: the whole value, never shortened. */
export function reportRow(problem: LoadProblem): string {
  return `${[problem.file, String(problem.line), problem.column, problem.value, problem.rule].map(csvField).join(',')}\r\n`;
}

export function failureSummary(
  problemCount: number,
  badRows: number,
  shown: number,
  reportPath: string | undefined,
): string {
  const plural = (count: number, word: string): string =>
    `${count.toLocaleString('en-US')} ${word}${count === 1 ? '' : 's'}`;
  const more =
    shown < problemCount
      ? ` (the first ${shown.toLocaleString('en-US')} above${reportPath ? `; all in ${reportPath}` : '; --report FILE writes them all'})`
      : reportPath
        ? ` (also in ${reportPath})`
        : '';
  return `import failed: ${plural(problemCount, 'problem')} in ${plural(badRows, 'row')}${more}; nothing was written`;
}

export function countsLine(counts: EntityCounts): string {
  const n = (value: number): string => value.toLocaleString('en-US');
  return `${counts.entity}: ${n(counts.rows)} rows, ${n(counts.inserted)} new, ${n(counts.updated)} changed, ${n(counts.unchanged)} unchanged`;
}

/**
 * The progress line on stderr: redrawn in place at most ~8 times a second on a terminal, a plain line per finished
 * file and per stage otherwise (CI logs, pipes), nothing with `--quiet`.
 */
export function progressPrinter(
  stream: NodeJS.WriteStream,
  quiet: boolean,
): (progress: LoadProgress) => void {
  if (quiet) return () => undefined;
  const tty = stream.isTTY === true;
  let lastDraw = 0;
  let fileStartedMs = 0;
  let currentFile = '';
  const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  return (progress) => {
    let line: string;
    let final = true;
    switch (progress.stage) {
      case 'reading': {
        if (progress.file !== currentFile) {
          currentFile = progress.file;
          fileStartedMs = progress.elapsedMs;
        }
        const fileMs = Math.max(1, progress.elapsedMs - fileStartedMs);
        const rate = Math.round((progress.rows * 1000) / fileMs).toLocaleString('en-US');
        line = `reading ${progress.file}: ${progress.rows.toLocaleString('en-US')} rows, ${rate} rows/s, ${seconds(progress.elapsedMs)}`;
        final = progress.done;
        break;
      }
      case 'merging':
        line = `merging ${progress.entity}, ${seconds(progress.elapsedMs)}`;
        break;
      case 'checking':
      case 'done':
        line = `${progress.stage}, ${seconds(progress.elapsedMs)}`;
        break;
      case 'refreshing':
        line = `refreshing rollups and claims, ${seconds(progress.elapsedMs)}`;
        break;
    }
    if (tty) {
      const now = Date.now();
      if (!final && now - lastDraw < 125) return;
      lastDraw = now;
      stream.write(`\r\x1b[K${line}${final ? '\n' : ''}`);
    } else if (final) stream.write(`${line}\n`);
  };
}
