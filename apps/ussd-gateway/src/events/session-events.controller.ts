import { Body, Controller, Get, HttpCode, Post, Query, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { strictValidationPipe } from '@dmrv/http-kit';
import { ApiOperatorAnswers } from '../contract/operator-api';
import { OperatorTokenGuard } from '../contract/operator-token.guard';
import { Caller, RequestCaller } from '../contract/request-caller';
import { ApiSessionEndNotification } from './session-event-api';
import { KnownEventListParameters, SessionEventListQuery } from './session-event-list-query';
import { SessionEventSenderGuard } from './session-event-sender.guard';
import { SessionEventList, SessionEventsService } from './session-events.service';
import { SessionEventPageView } from './session-event-views';

@ApiTags('Session events')
@Controller('api/ussd/events')
export class SessionEventsController {
  constructor(private readonly events: SessionEventsService) {}

  /**
   * The aggregator's session-end notification (JSON or form), from the aggregator only (SessionEventSenderGuard).
   * Not throttled by the throttler's guard: counted by the service under the session endpoint's policy, in the round
   * trip that locks the session. Read by parseSessionEvent, not a DTO: the aggregator's extra fields are ignored and
   * `input` (which holds PINs) is checked for its shape only, never kept.
   */
  @Post()
  @HttpCode(200)
  @SkipThrottle()
  @UseGuards(SessionEventSenderGuard)
  @ApiSessionEndNotification()
  async receive(
    @Body() body: unknown,
    @Caller() caller: RequestCaller,
  ): Promise<{ status: 'recorded' | 'duplicate' }> {
    return { status: await this.events.receive(body, caller) };
  }

  /** Operators: the kept notifications, newest first. */
  @Get()
  @UseGuards(OperatorTokenGuard)
  @ApiOperation({ operationId: 'listSessionEvents', summary: 'Session-end notifications, newest first' })
  @ApiOperatorAnswers({ description: 'One page', type: SessionEventPageView })
  list(
    @Query(new KnownEventListParameters(), strictValidationPipe()) query: SessionEventListQuery,
  ): Promise<SessionEventList> {
    return this.events.list(query);
  }
}
