import { mount, RouteMatch, RouteTable } from './route-table';

/**
 * A path prefix of an older release and the prefix its routes live under now. `/ixo/…` prefixes are mounted at
 * PROTOCOL_PREFIX like the routes; the Amino-era ones (`/did`, `/project`) were never under `/ixo`.
 */
export interface LegacyRule {
  legacy: string;
  current: string;
  /** Only paths with exactly this many segments after the legacy prefix (`/ixo/token/{minter}`). */
  segments?: number;
}

/** REFERENCE §3: the prefixes older releases served, and where those routes are today. */
export const LEGACY_RULES: readonly LegacyRule[] = [
  // Claims before they moved under /ixo/claims/.
  { legacy: '/ixo/claim', current: '/ixo/claims/claim' },
  { legacy: '/ixo/collection', current: '/ixo/claims/collection' },
  { legacy: '/ixo/dispute', current: '/ixo/claims/dispute' },
  { legacy: '/ixo/token', current: '/ixo/token/minter', segments: 1 },
  // Projects became entities; DIDs moved into the iid module.
  { legacy: '/ixo/project', current: '/ixo/entity' },
  { legacy: '/project', current: '/ixo/entity' },
  { legacy: '/did', current: '/ixo/did/dids' },
];

export interface LegacyMatch {
  /** The legacy prefix as served (mounted) and the current one. */
  legacyPrefix: string;
  currentPrefix: string;
  /** The path rewritten onto the current prefix (still percent-encoded), and the routes it matches (maybe none). */
  currentPath: string;
  matches: RouteMatch[];
}

function segmentsOf(path: string): string[] {
  return path.split('/').filter((segment) => segment.length > 0);
}

/** Paths of older releases: recognised only when no current route matched, then named or served as the current one. */
export class LegacyRoutes {
  private readonly rules: ReadonlyArray<{ legacy: string[]; current: string[]; segments?: number }>;
  /** Literal segments of current routes by position: `/ixo/token/metadata` is not a legacy `/ixo/token/{minter}`. */
  private readonly literals: ReadonlyArray<ReadonlySet<string>>;

  constructor(
    private readonly routes: RouteTable,
    rules: readonly LegacyRule[] = LEGACY_RULES,
  ) {
    this.rules = rules.map((rule) => ({
      legacy: segmentsOf(mount(rule.legacy, routes.prefix)),
      current: segmentsOf(mount(rule.current, routes.prefix)),
      segments: rule.segments,
    }));
    const literals: Array<Set<string>> = [];
    for (const route of routes.routes) {
      route.template.segments.forEach((segment, index) => {
        if (segment.kind === 'literal') (literals[index] ??= new Set()).add(segment.value);
      });
    }
    this.literals = literals;
  }

  /** The rule `path` (no query) falls under, with its rewrite onto the current routes. */
  resolve(path: string): LegacyMatch | undefined {
    const parts = segmentsOf(path);
    for (const rule of this.rules) {
      if (!rule.legacy.every((segment, index) => parts[index] === segment)) continue;
      const rest = parts.slice(rule.legacy.length);
      if (rule.segments !== undefined) {
        if (rest.length !== rule.segments) continue;
        if (rest.some((segment, index) => this.literals[rule.legacy.length + index]?.has(segment))) continue;
      }
      const currentPath = `/${[...rule.current, ...rest].join('/')}`;
      return {
        legacyPrefix: `/${rule.legacy.join('/')}`,
        currentPrefix: `/${rule.current.join('/')}`,
        currentPath,
        matches: this.routes.matchPath(currentPath),
      };
    }
    return undefined;
  }
}
