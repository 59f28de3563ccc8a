import { createHash } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { Root } from 'protobufjs';
import { JsonPrinter } from '../transcoding/json-printer';
import type { ReflectionState } from '../upstream/reflection-monitor';
import { rootFromFileDescriptors } from './node-descriptors';
import { Route, RouteTable } from './route-table';

/** The routes served right now. A new set replaces the whole object: a request keeps the set it matched in. */
export interface RouteSet {
  readonly table: RouteTable;
  /** 1 at start-up (compiled-in routes), one more each time the table changed. */
  readonly version: number;
  readonly changedAt: Date;
}

/**
 * The route table of the gateway and where it came from. At start-up: the routes of the protos we are built with. Each
 * time reflection reaches the node: every annotated query route of every service the node describes, from the node's
 * own descriptors (its modules we were not built with, and newer versions of ours), plus our compiled-in routes for
 * the services it did not describe (a node without reflection, or whose descriptors do not resolve, keeps ours
 * alone). Nothing is rebuilt while the node hands out the same descriptors; anything else (a node upgrade: routes
 * added or gone, messages with new fields) makes a new table with the next version, and whoever listens (the
 * document of the routes) is told.
 */
export class ServedRoutes {
  private readonly logger = new Logger('ServedRoutes');
  private set: RouteSet;
  private fingerprint = 'compiled-in';
  private readonly printers = new WeakMap<Root, JsonPrinter>();
  private readonly listeners: Array<(set: RouteSet) => void> = [];

  constructor(
    private readonly compiled: Root,
    private readonly compiledServices: readonly string[],
    private readonly prefix: string,
  ) {
    this.set = {
      table: RouteTable.fromRoot(compiled, compiledServices, prefix),
      version: 1,
      changedAt: new Date(),
    };
  }

  get current(): RouteSet {
    return this.set;
  }

  /** The printer of the descriptors the route was built from. */
  printerFor(route: Route): JsonPrinter {
    const root = route.responseType.root;
    let printer = this.printers.get(root);
    if (printer === undefined) {
      printer = new JsonPrinter(root);
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
    const fingerprint = descriptors.length === 0 ? 'compiled-in' : fingerprintOf(descriptors, listed);
    if (fingerprint === this.fingerprint) return false;
    const table = this.build(descriptors, listed);
    if (table === undefined) return false;
    this.fingerprint = fingerprint;
    this.set = { table, version: this.set.version + 1, changedAt: new Date() };
    const fromNode = table.routes.filter((route) => route.source === 'reflection').length;
    this.logger.log(
      { version: this.set.version, routes: table.routes.length, fromReflection: fromNode },
      'route table rebuilt from the node',
    );
    for (const listener of this.listeners) listener(this.set);
    return true;
  }

  private build(descriptors: readonly Uint8Array[], listed: readonly string[]): RouteTable | undefined {
    if (descriptors.length === 0)
      return RouteTable.fromRoot(this.compiled, this.compiledServices, this.prefix);
    let root: Root;
    try {
      root = rootFromFileDescriptors(descriptors);
    } catch (error) {
      // Keep serving what we have; the next refresh tries again.
      this.logger.warn(
        { err: error },
        'the node handed out descriptors that do not resolve; keeping the routes',
      );
      return undefined;
    }
    const described = listed.filter((name) => {
      try {
        return root.lookupService(name) !== null;
      } catch {
        return false;
      }
    });
    // A service the node describes without a single annotated query method keeps our routes, if we have any.
    const annotated = new Set(
      RouteTable.fromSources([{ root, services: described, source: 'reflection' }], this.prefix).routes.map(
        (route) => route.service,
      ),
    );
    return RouteTable.fromSources(
      [
        { root, services: [...annotated], source: 'reflection' },
        {
          root: this.compiled,
          services: this.compiledServices.filter((name) => !annotated.has(name)),
          source: 'compiled-in',
        },
      ],
      this.prefix,
    );
  }
}

function fingerprintOf(descriptors: readonly Uint8Array[], listed: readonly string[]): string {
  const hash = createHash('sha256');
  for (const name of listed) hash.update(name).update('\0');
  for (const digest of descriptors.map((bytes) => createHash('sha256').update(bytes).digest('hex')).sort())
    hash.update(digest);
  return hash.digest('hex');
}
