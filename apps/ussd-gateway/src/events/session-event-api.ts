import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation, ApiResponse, ApiSecurity } from '@nestjs/swagger';
import { ErrorBody } from '../contract/error-body';
import {
  EVENTS_FORBIDDEN_MESSAGE,
  EVENTS_TOKEN_HEADER,
  EVENTS_TOKEN_PARAMETER,
} from './session-event-sender.guard';
import { SessionEndNotificationBody, SessionEventReceipt } from './session-event-views';

/** The security schemes of the aggregator's notification in the OpenAPI document. */
export const EVENTS_TOKEN_SCHEMES = {
  eventsTokenHeader: { type: 'apiKey', in: 'header', name: EVENTS_TOKEN_HEADER },
  eventsTokenQuery: { type: 'apiKey', in: 'query', name: EVENTS_TOKEN_PARAMETER },
} as const;

const error = (status: number, description: string) => ApiResponse({ status, description, type: ErrorBody });

/** `POST /api/ussd/events` in the OpenAPI document. */
export const ApiSessionEndNotification = () =>
  applyDecorators(
    ApiOperation({
      operationId: 'receiveSessionEvent',
      summary: "The aggregator's session-end notification",
      description:
        'Closes the session and keeps the outcome. From the aggregator only: an address of EVENTS_ALLOWED_CIDRS, or ' +
        `EVENTS_TOKEN as the ${EVENTS_TOKEN_HEADER} header or the ?${EVENTS_TOKEN_PARAMETER}= parameter. Fields ` +
        'beyond these are ignored; an optional field may be empty.',
    }),
    ApiSecurity('eventsTokenHeader'),
    ApiSecurity('eventsTokenQuery'),
    ApiSecurity({}),
    ApiConsumes('application/json', 'application/x-www-form-urlencoded'),
    ApiBody({ type: SessionEndNotificationBody }),
    ApiResponse({ status: 200, description: 'Kept, or already kept', type: SessionEventReceipt }),
    error(400, 'A field is not valid: `Invalid session event: <names>`'),
    error(403, `Neither an allowed address nor the token: \`${EVENTS_FORBIDDEN_MESSAGE}\``),
    error(404, 'EVENTS_ENABLED=false: answered like an unknown route'),
    error(409, 'The session kept here belongs to another phone number'),
    error(429, "Past the session endpoint's rate limit"),
    error(503, 'PostgreSQL is unavailable'),
  );
