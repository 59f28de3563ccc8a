import { CpuProfile, ownerOf, renderProfileSummary, summariseProfile } from './cpu-profile';

const frame = (
  functionName: string,
  url: string,
  hitCount: number,
  id: number,
): CpuProfile['nodes'][number] => ({
  id,
  callFrame: { functionName, url, lineNumber: 9 },
  hitCount,
});

describe('CPU profile summary', () => {
  it.each([
    ['file:///work/main/node_modules/.pnpm/pino@9.14.0/node_modules/pino/lib/proto.js', 'pino'],
    ['/work/main/node_modules/.pnpm/@nestjs+core@11/node_modules/@nestjs/core/router/x.js', '@nestjs/core'],
    ['/work/main/apps/registry-api/dist/auth/auth.service.js', 'apps/registry-api'],
    ['node:internal/crypto/scrypt', 'node core'],
    ['', '(V8: GC, idle, native)'],
  ])('attributes %s to %s', (url, owner) => {
    expect(ownerOf(url)).toBe(owner);
  });

  it('ranks self time without the idle samples', () => {
    const profile: CpuProfile = {
      startTime: 0,
      endTime: 2_000_000,
      nodes: [
        frame('(idle)', '', 50, 1),
        frame('write', '/x/node_modules/pino/lib/proto.js', 30, 2),
        frame('scryptSync', 'node:internal/crypto/scrypt', 15, 3),
        frame('handle', '/work/main/apps/ussd-gateway/dist/ussd/ussd.controller.js', 5, 4),
      ],
    };

    const summary = summariseProfile(profile);

    expect(summary.busyShare).toBeCloseTo(0.5);
    expect(summary.owners.map((line) => [line.name, line.share])).toEqual([
      ['pino', 0.6],
      ['node core', 0.3],
      ['apps/ussd-gateway', 0.1],
    ]);
    expect(summary.functions[0]!.name).toBe('write lib/proto.js:10 [pino]');
    expect(renderProfileSummary('ussd', profile)).toContain('- 60.0 % pino');
  });
});
