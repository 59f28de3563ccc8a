/** A backing a contract suite runs on (a Redis namespace, process memory), closed when the suite ends. */
export interface ContractBacking {
  close?(): Promise<void>;
}

/**
 * Registers the lifecycle every store contract shares: the backing set up once before the suite and closed after it,
 * and a run number that changes before each test, so that tests on a shared backing use keys that never meet.
 */
export function useContractBacking<Backing extends ContractBacking>(
  setup: () => Backing,
): { readonly backing: Backing; readonly run: number } {
  let backing: Backing | undefined;
  let run = 0;
  beforeAll(() => {
    backing = setup();
  });
  afterAll(async () => {
    await backing?.close?.();
  });
  beforeEach(() => {
    run += 1;
  });
  return {
    get backing(): Backing {
      if (!backing)
        throw new Error('the contract backing is set up in beforeAll: use it inside a test or a hook');
      return backing;
    },
    get run(): number {
      return run;
    },
  };
}
