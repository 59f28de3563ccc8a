import { parseArgs } from 'node:util';
import { exportFiles, ExportTargetError } from '../loader/exporter';
import { FileFormat } from '../loader/load-files';
import { CommandContext, withClient } from './command-context';
import { MANIFEST_FILE } from '@dmrv/http-signatures';
import { exportManifest, manifestSigningKey, writeManifest } from './export-manifest';

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
  let summaries;
  try {
    summaries = await withClient(context.databaseUrl(), (client) =>
      exportFiles(
        client,
        positionals[0]!,
        format,
        (summary) => {
          if (!values.quiet)
            process.stderr.write(`wrote ${summary.file}: ${summary.rows.toLocaleString('en-US')} rows\n`);
        },
        [MANIFEST_FILE],
      ),
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
