import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FrameworkAnswer } from '@dmrv/http-kit';
import type { AnswerSigner, AnswerView } from './answer-signer';

function header(reply: FastifyReply, name: string): string | undefined {
  const value = reply.getHeader(name);
  return value === undefined ? undefined : String(value);
}

function isReadable(payload: unknown): payload is Readable {
  return typeof payload === 'object' && payload !== null && typeof (payload as Readable).pipe === 'function';
}

async function collected(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}

/** The target URI the client used: the configured origin, or the request's own scheme and authority. */
export function targetUriOf(
  origin: string | undefined,
  request: { protocol: string; host: string; url: string },
): string {
  return `${origin ?? `${request.protocol}://${request.host}`}${request.url}`;
}

/**
 * Content-Digest and a signature on every answer Fastify sends, registered after the caching hook so it signs the
 * answer as it leaves (a 304 included). Route handlers, the error filter and Fastify's 404 all end in `reply.send`,
 * so all pass here. A streamed body (Swagger UI's files) is read whole first: a digest needs every byte.
 */
export function registerAnswerSigning(
  fastify: FastifyInstance,
  signer: AnswerSigner,
  origin: string | undefined,
): void {
  const signed = (request: FastifyRequest, reply: FastifyReply, body: string | Buffer): void => {
    const head = request.method === 'HEAD';
    const view: AnswerView = {
      request: {
        method: request.method,
        targetUri: targetUriOf(origin, {
          protocol: request.protocol,
          host: request.host,
          url: request.raw.url ?? request.url,
        }),
      },
      status: reply.statusCode,
      contentType: header(reply, 'content-type'),
      etag: header(reply, 'etag'),
      // Fastify hands HEAD the body a GET would send and sends none of it (RFC 9110 §9.3.2).
      content: head ? '' : body,
      ...(head && reply.statusCode !== 304 ? { representation: body } : {}),
    };
    void reply.headers({ ...signer.sign(view) });
  };
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (isReadable(payload)) {
      collected(payload).then(
        (body) => {
          signed(request, reply, body);
          done(null, body);
        },
        (error: Error) => done(error),
      );
      return;
    }
    signed(request, reply, typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : '');
    done(null, payload);
  });
}

/** Headers for the answers http-kit writes itself (requests Fastify or Node refuse before any hook runs). */
export function frameworkAnswerSigner(
  signer: AnswerSigner,
  origin: string | undefined,
): (answer: FrameworkAnswer) => Record<string, string> {
  return (answer) => {
    const fields = signer.sign({
      request: answer.request && {
        method: answer.request.method,
        targetUri: targetUriOf(origin, answer.request),
      },
      status: answer.status,
      contentType: answer.contentType,
      content: answer.body,
    });
    return { ...fields };
  };
}
