import { All, Controller, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TranscoderService } from '../gateway/transcoder.service';

/**
 * Every path that no other controller owns: the transcoder decides from the proto route table (404, 405 and the
 * rest included), so there is no hand-written route per RPC.
 */
@Controller()
export class GatewayController {
  constructor(private readonly transcoder: TranscoderService) {}

  @All('*')
  async transcode(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const result = await this.transcoder.handle({
      method: request.method,
      url: request.url,
      headers: request.headers,
      requestId: String(request.id),
    });
    await reply.code(result.status).headers(result.headers).send(result.body);
  }
}
