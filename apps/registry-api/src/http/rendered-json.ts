import { hash } from 'node:crypto';
import type { FastifyReply } from 'fastify';

/** Weak entity tag of a JSON body as sent (the serialised text, so it changes exactly when the answer does). */
export function etagOf(json: string): string {
  return `W/"${hash('sha256', json, 'base64url').slice(0, 32)}"`;
}

/** A JSON body already serialised, with its entity tag: served as is, neither serialised nor hashed again. */
export interface RenderedJson {
  json: string;
  etag: string;
}

export function renderJson(body: unknown): RenderedJson {
  const json = JSON.stringify(body);
  return { json, etag: etagOf(json) };
}

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Hands a rendered body to Fastify: with a JSON content type a string payload is sent without serialising. */
export function sendRendered(reply: FastifyReply, rendered: RenderedJson): string {
  void reply.header('etag', rendered.etag).header('content-type', JSON_CONTENT_TYPE);
  return rendered.json;
}
