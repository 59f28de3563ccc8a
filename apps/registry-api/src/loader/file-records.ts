import { createReadStream } from 'node:fs';
import type { LoadFile } from './load-files';
import { CsvRecordReader } from './csv-record-reader';
import { NdjsonRecordReader } from './ndjson-record-reader';
import { JsonRecord, SourceRecord } from './record-readers';
import { StrictTextDecoder } from './text-decoding';

/**
 * The first stage of a load: a data file read in chunks, decoded as strict UTF-8 and parsed into records, batch by
 * batch. A batch with `notText` is the last: the file stopped being text there, and the records before it are all
 * it has.
 */
export interface RecordBatch {
  records: Array<SourceRecord | JsonRecord>;
  notText?: { line: number; rule: string };
}

const READ_CHUNK = 1024 * 1024;

/** The chunks of `source` until `signal` aborts; a read that never completes (a stalled pipe) is not awaited. */
async function* untilAborted<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next.done) return;
      yield next.value;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** The records of `file`, one batch per chunk read (and one at its end), until `signal` aborts the read. */
export async function* readRecordBatches(file: LoadFile, signal: AbortSignal): AsyncGenerator<RecordBatch> {
  const records: Array<SourceRecord | JsonRecord> = [];
  const reader =
    file.format === 'csv'
      ? new CsvRecordReader((record) => records.push(record))
      : new NdjsonRecordReader((record) => records.push(record));
  const decoder = new StrictTextDecoder();
  const stream = createReadStream(file.path, { highWaterMark: READ_CHUNK });
  try {
    for await (const chunk of untilAborted(stream as AsyncIterable<Buffer>, signal)) {
      const decoded = decoder.push(chunk);
      if (decoded.ok) reader.push(decoded.text);
      yield { records: records.splice(0), notText: decoded.ok ? undefined : decoded };
      if (!decoded.ok) return;
    }
  } finally {
    stream.destroy();
  }
  const last = decoder.end();
  if (!last.ok) {
    yield { records: [], notText: last };
    return;
  }
  reader.end();
  yield { records: records.splice(0) };
}
