import { percentile, SessionCounter } from './session-counter';

const hop = {};
const completing = { completes: true, doesWork: true };

describe('SessionCounter', () => {
  it('completes a pass on its completing hop answered right, with every hop of it in the latencies', () => {
    const counter = new SessionCounter();
    const pass = {};
    counter.record(pass, hop, 'right', 2);
    counter.record(pass, hop, 'right', 4);
    counter.record(pass, completing, 'right', 300);

    expect(counter.tally(2)).toEqual({
      completed: 1,
      shed: 0,
      work: 1,
      completedPerS: 0.5,
      shedPerS: 0,
      workPerS: 0.5,
      completedHops: 3,
      completedHopP50Ms: 4,
      completedHopP99Ms: 300,
    });
  });

  it('counts a shed hop apart: neither a completion nor work, and the shed pass leaves no latencies behind', () => {
    const counter = new SessionCounter();
    const shedPass = {};
    counter.record(shedPass, hop, 'right', 900);
    counter.record(shedPass, completing, 'shed', 1);
    const nextPass = {};
    counter.record(nextPass, hop, 'right', 3);
    counter.record(nextPass, completing, 'right', 5);

    expect(counter.tally(1)).toMatchObject({
      completed: 1,
      shed: 1,
      work: 1,
      completedHops: 2,
      completedHopP99Ms: 5,
    });
  });

  it('never completes a pass that had a wrong answer, though the work its right answers did is counted', () => {
    const counter = new SessionCounter();
    const pass = {};
    counter.record(pass, hop, 'wrong', 2);
    counter.record(pass, completing, 'right', 40);

    expect(counter.tally(1)).toMatchObject({
      completed: 0,
      shed: 0,
      work: 1,
      completedHops: 0,
      completedHopP99Ms: 0,
    });
  });

  it('counts two sessions played in one pass (creation, then log-in) as two, each with its own hops', () => {
    const counter = new SessionCounter();
    const pass = {};
    counter.record(pass, hop, 'right', 1);
    counter.record(pass, completing, 'right', 10);
    counter.record(pass, hop, 'right', 1);
    counter.record(pass, completing, 'right', 20);

    expect(counter.tally(1)).toMatchObject({ completed: 2, work: 2, completedHops: 4 });
  });

  it('keeps passes apart when their hops interleave, as connections answered in any order do', () => {
    const counter = new SessionCounter();
    const [first, second] = [{}, {}];
    counter.record(first, hop, 'right', 1);
    counter.record(second, hop, 'right', 2);
    counter.record(second, completing, 'shed', 3);
    counter.record(first, completing, 'right', 4);

    expect(counter.tally(1)).toMatchObject({
      completed: 1,
      shed: 1,
      completedHops: 2,
      completedHopP50Ms: 1,
      completedHopP99Ms: 4,
    });
  });
});

describe('percentile', () => {
  it('takes the nearest rank, and 0 of nothing', () => {
    const sorted = Array.from({ length: 200 }, (_, index) => index + 1);
    expect([percentile(sorted, 0.5), percentile(sorted, 0.99), percentile(sorted, 1)]).toEqual([
      100, 198, 200,
    ]);
    expect(percentile([7], 0.99)).toBe(7);
    expect(percentile([], 0.99)).toBe(0);
  });
});
