import { setImmediate as nextTurn } from 'node:timers/promises';
import { MAX_PENDING_CHARS, TurnBufferedDestination } from './turn-buffered-destination';

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

describe('TurnBufferedDestination', () => {
  it('writes the lines of one turn as one chunk, in order, at the end of the turn', async () => {
    const sink = recordingSink();
    const stream = new TurnBufferedDestination(sink);
    stream.write('a\n');
    await Promise.resolve();
    stream.write('b\n');
    expect(sink.chunks).toEqual([]);
    await nextTurn();
    expect(sink.chunks).toEqual(['a\nb\n']);
  });

  it('writes each turn apart, and nothing for a turn that logged nothing', async () => {
    const sink = recordingSink();
    const stream = new TurnBufferedDestination(sink);
    stream.write('first\n');
    await nextTurn();
    await nextTurn();
    stream.write('second\n');
    await nextTurn();
    expect(sink.chunks).toEqual(['first\n', 'second\n']);
  });

  it('writes at once when a turn logs more than the bound, then buffers again', async () => {
    const sink = recordingSink();
    const stream = new TurnBufferedDestination(sink);
    const big = `${'x'.repeat(MAX_PENDING_CHARS)}\n`;
    stream.write('before\n');
    stream.write(big);
    expect(sink.chunks).toEqual([`before\n${big}`]);
    stream.write('after\n');
    expect(sink.chunks).toHaveLength(1);
    await nextTurn();
    expect(sink.chunks).toEqual([`before\n${big}`, 'after\n']);
  });

  it('flushSync writes what is pending and flushes the sink, without waiting for the turn to end', () => {
    const sink = recordingSink();
    const stream = new TurnBufferedDestination(sink);
    stream.write('pending\n');
    stream.flushSync();
    expect(sink.chunks).toEqual(['pending\n']);
    expect(sink.syncFlushes).toBe(1);
  });

  it("flush(cb), pino's logger.flush, calls back once the pending lines are written", () => {
    const sink = recordingSink();
    const stream = new TurnBufferedDestination(sink);
    stream.write('pending\n');
    const seen: string[][] = [];
    stream.flush(() => seen.push([...sink.chunks]));
    expect(seen).toEqual([['pending\n']]);
  });

  it('writes no empty chunk when the turn ends after a flush', async () => {
    const sink = recordingSink();
    const stream = new TurnBufferedDestination(sink);
    stream.write('one\n');
    stream.flushSync();
    await nextTurn();
    expect(sink.chunks).toEqual(['one\n']);
  });
});
