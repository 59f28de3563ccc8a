type Cleanup = () => Promise<void> | void;

export interface Deferred {
  release(): Promise<void>;
  dismiss(): void;
}

interface Entry {
  label: string;
  cleanup: Cleanup;
}

/**
 * Everything the run started (processes, databases, Redis keys) registers how to undo itself here, so a failure,
 * Ctrl-C or SIGTERM leaves nothing behind. Cleanups run newest first, like nested `finally` blocks.
 */
export class Janitor {
  private readonly entries: Entry[] = [];
  private running: Promise<string[]> | undefined;

  /** Registers a cleanup; `release` runs it now (once), `dismiss` forgets it (the resource is kept on purpose). */
  defer(label: string, cleanup: Cleanup): Deferred {
    const entry: Entry = { label, cleanup };
    this.entries.push(entry);
    const take = (): boolean => {
      const index = this.entries.indexOf(entry);
      if (index === -1) return false;
      this.entries.splice(index, 1);
      return true;
    };
    return {
      release: async () => {
        if (take()) await cleanup();
      },
      dismiss: () => {
        take();
      },
    };
  }

  /** Runs every pending cleanup even if some fail; returns the failures as messages. */
  cleanAll(): Promise<string[]> {
    // Concurrent callers (a signal during the normal cleanup) share one pass instead of racing over the list.
    if (!this.running) {
      const pass = this.drain();
      this.running = pass;
      void pass.finally(() => {
        if (this.running === pass) this.running = undefined;
      });
    }
    return this.running;
  }

  private async drain(): Promise<string[]> {
    const failures: string[] = [];
    while (this.entries.length > 0) {
      const entry = this.entries.pop()!;
      try {
        await entry.cleanup();
      } catch (error) {
        failures.push(`${entry.label}: ${(error as Error).message}`);
      }
    }
    return failures;
  }

  get pending(): string[] {
    return this.entries.map((entry) => entry.label);
  }
}
