import { AnswerTally, protocolKind, registryKind, USSD_UNAVAILABLE, ussdKind } from './answers';
import { flatness, plotSvg, Sample } from './report';

function sample(at: number, rss: number, fds: number): Sample {
  const zero = { ok: 0, unavailable: 0, busy: 0, undocumented: 0 };
  return {
    at,
    rates: { ussd: { ...zero, ok: 5 }, registry: zero, protocol: zero },
    rssMiB: { ussd: rss, registry: 100, protocol: 100 },
    fds: { ussd: fds, registry: 30, protocol: 30 },
  };
}

describe('soak answer kinds', () => {
  it('takes only the documented outage answers as "try later"', () => {
    expect(ussdKind(200, 'CON Welcome', true)).toBe('ok');
    expect(ussdKind(200, USSD_UNAVAILABLE, false)).toBe('unavailable');
    expect(
      ussdKind(200, 'END The service is busy checking PINs. Please dial again in a minute.', false),
    ).toBe('busy');
    expect(ussdKind(200, 'CON Welcome, Amina', false)).toBe('undocumented');
    expect(ussdKind(0, 'no answer: timeout', false)).toBe('undocumented');
    expect(registryKind(503, '{"message":"The registry database is unavailable; retry later"}', false)).toBe(
      'unavailable',
    );
    expect(registryKind(503, 'Service Unavailable', false)).toBe('undocumented');
    expect(registryKind(500, '{"message":"Internal server error"}', false)).toBe('undocumented');
    expect(
      protocolKind(504, '{"code":4,"message":"the chain node did not answer in time","details":[]}', false),
    ).toBe('unavailable');
    expect(protocolKind(502, '{"code":14,"message":"x","details":[]}', false)).toBe('undocumented');
  });

  it('counts by service and kind and keeps a sample of what was undocumented', () => {
    const tally = new AnswerTally();
    tally.add('ussd', 'ok');
    tally.add('ussd', 'undocumented', '200 CON wrong screen');
    expect(tally.snapshot().ussd).toEqual({ ok: 1, unavailable: 0, busy: 0, undocumented: 1 });
    expect(tally.undocumentedSamples).toEqual(['ussd: 200 CON wrong screen']);
  });
});

describe('soak flatness', () => {
  it('holds when RSS and descriptors settle, fails on a steady climb', () => {
    const settled = Array.from({ length: 40 }, (_, at) => sample(at * 5, at < 4 ? 100 + at * 30 : 210, 34));
    expect(flatness(settled).find((row) => row.service === 'ussd')).toMatchObject({
      flat: true,
      rssEndMiB: 210,
    });
    const leaking = Array.from({ length: 40 }, (_, at) => sample(at * 5, 200 + at * 20, 34));
    expect(flatness(leaking).find((row) => row.service === 'ussd')?.flat).toBe(false);
    const fdLeak = Array.from({ length: 40 }, (_, at) => sample(at * 5, 200, 30 + at));
    expect(flatness(fdLeak).find((row) => row.service === 'ussd')?.flat).toBe(false);
  });

  it('plots every service and shades each fault window', () => {
    const svg = plotSvg(
      [sample(0, 100, 30), sample(5, 110, 30)],
      [{ dependency: 'redis', mode: 'cut', from: 1, to: 3 }],
    );
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.match(/<polyline/g)).toHaveLength(3 + 6 + 3);
    expect(svg).toContain('<title>redis cut</title>');
  });
});
