import { hash } from 'node:crypto';
import type { FastifyReply } from 'fastify';

/** Weak entity tag of a JSON body as sent (the serialised text, so it changes exactly when the answer does). */
export function etagOf(json: string): string {
  return `W/"${hash('sha256', json, 'base64url').slice(0, 32)}"`;
}

/** A JSON body already serialised, with its entity tag: served as is, neither serialised nor hashed again. */
export class RenderedJson {
  constructor(
    readonly json: string,
    readonly etag: string,
  ) {}
}

export function renderJson(body: unknown): RenderedJson {
  const json = JSON.stringify(body);
  return new RenderedJson(json, etagOf(json));
}

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * What a route hands to Nest for an answer: a rendered body as its text, with its tag and a JSON content type (so
 * Fastify sends the string without serialising it again); any other answer as it is, for Fastify to serialise.
 */
export function sendAnswer(reply: FastifyReply, answer: unknown): unknown {
  if (!(answer instanceof RenderedJson)) return answer;
  void reply.header('etag', answer.etag).header('content-type', JSON_CONTENT_TYPE);
  return answer.json;
}
