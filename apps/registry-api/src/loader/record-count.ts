import { createReadStream } from 'node:fs';
import type { FileFormat } from './load-files';
import { CsvRecordReader } from './csv-record-reader';
import { NdjsonRecordReader } from './ndjson-record-reader';
import { StrictTextDecoder } from './text-decoding';

/** Records in a data file, read as `import` reads it (a CSV's header line not counted); undefined if it does not read. */
export async function countRecords(path: string, format: FileFormat): Promise<number | undefined> {
  let records = 0;
  let broken = false;
  const count = (record: { error?: string }): void => {
    if (record.error !== undefined) broken = true;
    records += 1;
  };
  const reader = format === 'csv' ? new CsvRecordReader(count) : new NdjsonRecordReader(count);
  const decoder = new StrictTextDecoder();
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    const decoded = decoder.push(chunk);
    if (!decoded.ok) return undefined;
    reader.push(decoded.text);
  }
  const last = decoder.end();
  if (!last.ok) return undefined;
  reader.push(last.text);
  reader.end();
  if (broken) return undefined;
  return format === 'csv' ? Math.max(records - 1, 0) : records;
}
