import { All, Controller, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { setMetricsRoute, UNMATCHED_ROUTE } from '@dmrv/metrics';
import { GatewayRequest, GatewayResponse, QueryPipeline } from '../pipeline/query-pipeline';

// Fastify's own JSON content type; with it given, the printed string goes out as it is, without Fastify's serializer.
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Every path that no other controller owns: the query pipeline decides from the proto route table (404, 405 and the
 * rest included), so there is no hand-written route per RPC.
 */
@Controller()
export class GatewayController {
  constructor(private readonly pipeline: QueryPipeline) {}

  @All('*')
  async transcode(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const gatewayRequest: GatewayRequest = {
      method: request.method,
      url: request.url,
      headers: request.headers,
      requestId: String(request.id),
      route: undefined,
    };
    let result: GatewayResponse;
    try {
      result = await this.pipeline.handle(gatewayRequest);
    } finally {
      // This one Fastify route serves every RPC: the metrics and the trace name the proto route instead.
      setMetricsRoute(request, gatewayRequest.route ?? UNMATCHED_ROUTE);
    }
    // CORS may have set `vary: origin` already; the answer's own `vary` adds to it.
    const vary = reply.getHeader('vary');
    if (vary !== undefined && result.headers.vary !== undefined)
      result.headers.vary = `${String(vary)}, ${result.headers.vary}`;
    await reply
      .code(result.status)
      .headers(result.headers)
      .header('content-type', JSON_CONTENT_TYPE)
      .send(result.body);
  }
}
