import { Body, Controller, Get, HttpCode, Post, Query, UseGuards } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import { InvalidInputError } from '@dmrv/errors';
import { OperatorTokenGuard } from '../contract/operator-token.guard';
import { Caller, RequestCaller } from '../contract/request-caller';
import { encodeCursor, parseEventListQuery } from './session-event-list-query';
import type { SessionEventRecord } from './session-events.repository';
import { SessionEventSenderGuard } from './session-event-sender.guard';
import { SessionEventsService } from './session-events.service';

export interface SessionEventList {
  events: SessionEventRecord[];
  nextCursor: string | null;
}

@Controller('api/ussd/events')
export class SessionEventsController {
  constructor(private readonly events: SessionEventsService) {}

  /**
   * The aggregator's session-end notification (JSON or form), from the aggregator only (SessionEventSenderGuard).
   * Not throttled by the throttler's guard: counted by the service under the session endpoint's policy, in the round
   * trip that locks the session.
   */
  @Post()
  @HttpCode(200)
  @SkipThrottle()
  @UseGuards(SessionEventSenderGuard)
  async receive(
    @Body() body: unknown,
    @Caller() caller: RequestCaller,
  ): Promise<{ status: 'recorded' | 'duplicate' }> {
    return { status: await this.events.receive(body, caller) };
  }

  /** Operators: the kept notifications, newest first. */
  @Get()
  @UseGuards(OperatorTokenGuard)
  async list(@Query() query: unknown): Promise<SessionEventList> {
    const parsed = parseEventListQuery(query);
    if (!parsed.valid) throw new InvalidInputError(parsed.message);
    const page = await this.events.list(parsed.filter);
    return {
      events: page.events,
      nextCursor: page.nextCursor === null ? null : encodeCursor(page.nextCursor),
    };
  }
}
