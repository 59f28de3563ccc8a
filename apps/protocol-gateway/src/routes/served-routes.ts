import { createHash } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { Root } from 'protobufjs';
import { JsonPrinter } from '../transcoding/json-printer';
import type { ReflectionState } from '../upstream/reflection-monitor';
import { rootFromFileDescriptors } from './node-descriptors';
import { Route, RouteTable, SkippedBinding } from './route-table';

/** The routes served right now. A new set replaces the whole object: a request keeps the set it matched in. */
export interface RouteSet {
  readonly table: RouteTable;
  /** The bindings the node advertised that the gateway does not serve (read-only rule, bad templates…). */
  readonly skipped: readonly SkippedBinding[];
  /** 1 at start-up (compiled-in routes), one more each time the table changed. */
  readonly version: number;
  readonly changedAt: Date;
}

/** Why the node's descriptors as a whole were not used (the routes in service stay as they are). */
export type RefusalReason =
  /** More routes than `maxReflectedRoutes` (REFLECTION_MAX_ROUTES). */
  | 'too-many-routes'
  /** More descriptor bytes than REFLECTION_MAX_BYTES: the reflection monitor stopped reading them. */
  | 'too-large'
  /** Files whose references do not resolve. */
  | 'unresolvable'
  /** Anything else that went wrong building a table from them. */
  | 'failed';

export const REFUSAL_REASONS: readonly RefusalReason[] = [
  'too-many-routes',
  'too-large',
  'unresolvable',
  'failed',
];

export interface ServedRoutesOptions {
  prefix: string;
  /** Most routes taken from the node's descriptors; beyond it they are refused whole. */
  maxReflectedRoutes: number;
  /** Told once per refused set of descriptors (the same set again is not told again). */
  onRefused?: (reason: RefusalReason) => void;
}

// Skipped bindings are logged one line each up to this many per table; the rest in one line with their count.
const SKIPPED_LOGGED_ONE_BY_ONE = 20;

class Refusal extends Error {
  constructor(
    readonly reason: RefusalReason,
    message: string,
    readonly detail: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/**
 * The route table of the gateway and where it came from. At start-up: the routes of the protos we are built with. Each
 * time reflection reaches the node: every annotated query route of every service the node describes, from the node's
 * own descriptors (its modules we were not built with, and newer versions of ours), plus our compiled-in routes for
 * the services it did not describe (a node without reflection, or whose descriptors do not resolve, keeps ours
 * alone). Nothing is rebuilt while the node hands out the same descriptors; anything else (a node upgrade: routes
 * added or gone, messages with new fields) makes a new table with the next version, and whoever listens (the
 * document of the routes) is told.
 *
 * The node is not trusted to be well-formed: a binding the gateway cannot serve (any verb but GET, a bad template) is
 * skipped and logged once, and descriptors that do not resolve or exceed the limits are refused whole, logged once
 * and counted, while the routes in service stay. Nothing the node hands out makes `update` throw.
 */
export class ServedRoutes {
  private readonly logger = new Logger('ServedRoutes');
  private set: RouteSet;
  private fingerprint = 'compiled-in';
  /** The fingerprint of the descriptors last refused: the same ones again are not parsed or logged again. */
  private refused: string | undefined;
  private readonly printers = new WeakMap<Root, JsonPrinter>();
  private readonly listeners: Array<(set: RouteSet) => void> = [];

  constructor(
    private readonly compiled: Root,
    private readonly compiledServices: readonly string[],
    private readonly options: ServedRoutesOptions,
  ) {
    const table = RouteTable.fromRoot(compiled, compiledServices, options.prefix);
    this.set = { table, skipped: table.skipped, version: 1, changedAt: new Date() };
  }

  get current(): RouteSet {
    return this.set;
  }

  /** The printer of the descriptors the route was built from. */
  printerFor(route: Route): JsonPrinter {
    const root = route.responseType.root;
    let printer = this.printers.get(root);
    if (printer === undefined) {
      printer = new JsonPrinter(root, this.compiled);
      this.printers.set(root, printer);
    }
    return printer;
  }

  onChange(listener: (set: RouteSet) => void): void {
    this.listeners.push(listener);
  }

  /** Rebuilds the table from what reflection learnt; true when it changed. */
  update(state: ReflectionState): boolean {
    const descriptors = state.kind === 'known' ? state.descriptors : [];
    const listed = state.kind === 'known' ? [...state.services].sort() : [];
    const tooLarge = state.kind === 'known' && state.tooLarge;
    const fingerprint = tooLarge
      ? `too-large:${fingerprintOf([], listed)}`
      : descriptors.length === 0
        ? 'compiled-in'
        : fingerprintOf(descriptors, listed);
    if (fingerprint === this.fingerprint || fingerprint === this.refused) return false;
    let built: { table: RouteTable; skipped: SkippedBinding[] };
    try {
      if (tooLarge) {
        throw new Refusal(
          'too-large',
          'the node hands out more descriptor bytes than REFLECTION_MAX_BYTES; keeping the routes',
        );
      }
      built = this.build(descriptors, listed);
    } catch (error) {
      this.refuse(fingerprint, error);
      return false;
    }
    this.fingerprint = fingerprint;
    this.refused = undefined;
    const { table, skipped } = built;
    const before = new Set(this.set.skipped.map(skippedKey));
    this.set = { table, skipped, version: this.set.version + 1, changedAt: new Date() };
    this.logSkipped(skipped.filter((binding) => !before.has(skippedKey(binding))));
    const fromNode = table.routes.filter((route) => route.source === 'reflection').length;
    this.logger.log(
      {
        version: this.set.version,
        routes: table.routes.length,
        fromReflection: fromNode,
        skipped: skipped.length,
      },
      'route table rebuilt from the node',
    );
    for (const listener of this.listeners) listener(this.set);
    return true;
  }

  private refuse(fingerprint: string, error: unknown): void {
    this.refused = fingerprint;
    const refusal =
      error instanceof Refusal
        ? error
        : new Refusal(
            'failed',
            'the node handed out descriptors the gateway could not use; keeping the routes',
            {
              err: error,
            },
          );
    this.logger.warn({ reason: refusal.reason, ...refusal.detail }, refusal.message);
    this.options.onRefused?.(refusal.reason);
  }

  private logSkipped(newly: readonly SkippedBinding[]): void {
    for (const binding of newly.slice(0, SKIPPED_LOGGED_ONE_BY_ONE)) {
      this.logger.warn(
        { rpc: binding.fullMethod, binding: binding.binding, reason: binding.reason, detail: binding.detail },
        'the node advertises an HTTP binding the gateway does not serve',
      );
    }
    if (newly.length > SKIPPED_LOGGED_ONE_BY_ONE) {
      this.logger.warn(
        { more: newly.length - SKIPPED_LOGGED_ONE_BY_ONE },
        'the node advertises more HTTP bindings the gateway does not serve',
      );
    }
  }

  private build(
    descriptors: readonly Uint8Array[],
    listed: readonly string[],
  ): { table: RouteTable; skipped: SkippedBinding[] } {
    if (descriptors.length === 0) {
      const table = RouteTable.fromRoot(this.compiled, this.compiledServices, this.options.prefix);
      return { table, skipped: [...table.skipped] };
    }
    let root: Root;
    try {
      root = rootFromFileDescriptors(descriptors);
    } catch (error) {
      throw new Refusal(
        'unresolvable',
        'the node handed out descriptors that do not resolve; keeping the routes',
        { err: error },
      );
    }
    const described = listed.filter((name) => {
      try {
        return root.lookupService(name) !== null;
      } catch {
        return false;
      }
    });
    const fromNode = RouteTable.fromSources(
      [{ root, services: described, source: 'reflection' }],
      this.options.prefix,
    );
    if (fromNode.routes.length > this.options.maxReflectedRoutes) {
      throw new Refusal(
        'too-many-routes',
        'the node advertises more routes than REFLECTION_MAX_ROUTES; keeping the routes',
        { routes: fromNode.routes.length, limit: this.options.maxReflectedRoutes },
      );
    }
    // A service the node describes without a single annotated query method keeps our routes, if we have any.
    const annotated = new Set(fromNode.routes.map((route) => route.service));
    const table = RouteTable.fromSources(
      [
        { root, services: [...annotated], source: 'reflection' },
        {
          root: this.compiled,
          services: this.compiledServices.filter((name) => !annotated.has(name)),
          source: 'compiled-in',
        },
      ],
      this.options.prefix,
    );
    // What the node advertised and we do not serve, whichever services it was in.
    return { table, skipped: [...fromNode.skipped] };
  }
}

function skippedKey(binding: SkippedBinding): string {
  return `${binding.fullMethod} ${binding.binding} ${binding.reason}`;
}

function fingerprintOf(descriptors: readonly Uint8Array[], listed: readonly string[]): string {
  const hash = createHash('sha256');
  for (const name of listed) hash.update(name).update('\0');
  for (const digest of descriptors.map((bytes) => createHash('sha256').update(bytes).digest('hex')).sort())
    hash.update(digest);
  return hash.digest('hex');
}
