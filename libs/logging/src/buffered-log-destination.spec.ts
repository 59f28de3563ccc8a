import { BufferedLogDestination, MAX_LINE_DELAY_MS, MAX_PENDING_CHARS } from './buffered-log-destination';

function recordingSink(): {
  chunks: string[];
  syncFlushes: number;
  write(chunk: string): void;
  flushSync(): void;
} {
  return {
    chunks: [],
    syncFlushes: 0,
    write(chunk: string) {
      this.chunks.push(chunk);
    },
    flushSync() {
      this.syncFlushes += 1;
    },
  };
}

const info = (msg: string): string => `{"level":30,"time":1,"msg":"${msg}"}\n`;
const warn = (msg: string): string => `{"level":40,"time":1,"msg":"${msg}"}\n`;
const error = (msg: string): string => `{"level":50,"time":1,"msg":"${msg}"}\n`;
const fatal = (msg: string): string => `{"level":60,"time":1,"msg":"${msg}"}\n`;

describe('BufferedLogDestination', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('holds lines below error for at most the delay, then writes them as one chunk, in order', () => {
    const sink = recordingSink();
    const stream = new BufferedLogDestination(sink);
    stream.write(info('a'));
    jest.advanceTimersByTime(MAX_LINE_DELAY_MS - 5);
    stream.write(warn('b'));
    jest.advanceTimersByTime(4);
    expect(sink.chunks).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(sink.chunks).toEqual([info('a') + warn('b')]);
  });

  it('starts the delay again with the next line, and writes nothing while nothing is logged', () => {
    const sink = recordingSink();
    const stream = new BufferedLogDestination(sink);
    stream.write(info('first'));
    jest.advanceTimersByTime(MAX_LINE_DELAY_MS * 10);
    stream.write(info('second'));
    jest.advanceTimersByTime(MAX_LINE_DELAY_MS - 1);
    expect(sink.chunks).toEqual([info('first')]);
    jest.advanceTimersByTime(1);
    expect(sink.chunks).toEqual([info('first'), info('second')]);
  });

  it('takes its delay from the constructor', () => {
    const sink = recordingSink();
    const stream = new BufferedLogDestination(sink, 3);
    stream.write(info('a'));
    jest.advanceTimersByTime(2);
    expect(sink.chunks).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(sink.chunks).toEqual([info('a')]);
  });

  it.each([
    ['an error', error('boom')],
    ['a fatal', fatal('down')],
  ])('writes %s line at the end of its turn, with every line held before it', (_level, line) => {
    const sink = recordingSink();
    const stream = new BufferedLogDestination(sink);
    stream.write(info('before'));
    stream.write(line);
    expect(sink.chunks).toEqual([]);
    jest.advanceTimersByTime(0);
    expect(sink.chunks).toEqual([info('before') + line]);
    // The delay's timer, still set by the first line, finds nothing left to write.
    jest.advanceTimersByTime(MAX_LINE_DELAY_MS);
    expect(sink.chunks).toHaveLength(1);
  });

  it('does not take a line that only mentions level 50 for an error line', () => {
    const sink = recordingSink();
    const stream = new BufferedLogDestination(sink);
    stream.write('{"level":30,"msg":"{\\"level\\":50"}\n');
    stream.write('not json at all, 5\n');
    jest.advanceTimersByTime(0);
    expect(sink.chunks).toEqual([]);
    jest.advanceTimersByTime(MAX_LINE_DELAY_MS);
    expect(sink.chunks).toHaveLength(1);
  });

  it('writes at once when more than the bound is pending, then holds again', () => {
    const sink = recordingSink();
    const stream = new BufferedLogDestination(sink);
    const big = `${'x'.repeat(MAX_PENDING_CHARS)}\n`;
    stream.write(info('before'));
    stream.write(big);
    expect(sink.chunks).toEqual([info('before') + big]);
    stream.write(info('after'));
    expect(sink.chunks).toHaveLength(1);
    jest.advanceTimersByTime(MAX_LINE_DELAY_MS);
    expect(sink.chunks).toEqual([info('before') + big, info('after')]);
  });

  it('flushSync writes what is pending and flushes the sink, without waiting for the delay', () => {
    const sink = recordingSink();
    const stream = new BufferedLogDestination(sink);
    stream.write(info('pending'));
    stream.flushSync();
    expect(sink.chunks).toEqual([info('pending')]);
    expect(sink.syncFlushes).toBe(1);
  });

  it("flush(cb), pino's logger.flush, calls back once the pending lines are written", () => {
    const sink = recordingSink();
    const stream = new BufferedLogDestination(sink);
    stream.write(info('pending'));
    const seen: string[][] = [];
    stream.flush(() => seen.push([...sink.chunks]));
    expect(seen).toEqual([[info('pending')]]);
  });

  it('writes no empty chunk when the delay ends after a flush', () => {
    const sink = recordingSink();
    const stream = new BufferedLogDestination(sink);
    stream.write(info('one'));
    stream.flushSync();
    jest.advanceTimersByTime(MAX_LINE_DELAY_MS);
    expect(sink.chunks).toEqual([info('one')]);
  });

  it('does not keep a process alive: its timer is unreferenced', () => {
    const sink = recordingSink();
    const stream = new BufferedLogDestination(sink);
    const setTimeoutSpy = jest.spyOn(global, 'setTimeout');
    stream.write(info('one'));
    const timer = setTimeoutSpy.mock.results[0]?.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    setTimeoutSpy.mockRestore();
  });
});
