import { hash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

/** Weak entity tag of a JSON body as sent (the serialised text, so it changes exactly when the answer does). */
export function etagOf(json: string): string {
  return `W/"${hash('sha256', json, 'base64url').slice(0, 32)}"`;
}

/**
 * A JSON body of type `T` already serialised, with its entity tag: served as is, neither serialised nor hashed again.
 * A route returns it as it would return the body itself (see `registerRenderedJson`).
 */
export class RenderedJson<T = unknown> {
  /** Never set: ties the text to the type of the body it renders, so a route's return type says what it answers. */
  declare readonly body?: T;

  constructor(
    readonly json: string,
    readonly etag: string,
  ) {}
}

/** What a route answers: its body, or the same body already rendered. */
export type JsonAnswer<T> = T | RenderedJson<T>;

export function renderJson<T>(body: T): RenderedJson<T> {
  const json = JSON.stringify(body);
  return new RenderedJson<T>(json, etagOf(json));
}

/**
 * Lets routes return a `RenderedJson` as they return any body: Fastify sends its text, with the JSON content type it
 * gives every object it serialises, and its tag goes ahead as the ETag, for the caching hook to use instead of hashing
 * the text again. Other answers are serialised as they always are.
 */
export function registerRenderedJson(fastify: FastifyInstance): void {
  fastify.addHook('preSerialization', (_request, reply, payload, done) => {
    if (payload instanceof RenderedJson) {
      const { json, etag } = payload;
      void reply.header('etag', etag).serializer(() => json);
    }
    done(null, payload);
  });
}
