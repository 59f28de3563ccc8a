import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { OPERATOR_TOKEN_SCHEME, OPERATOR_TOKEN_SECURITY } from './contract/operator-api';
import { UssdSessionRequestBody } from './contract/ussd-request-body';
import { EVENTS_TOKEN_SCHEMES } from './events/session-event-api';
import { EventsModule } from './events/events.module';
import { OrderStatusUpdate, TicketStatusUpdate } from './operators/operator-records.dto';
import { OperatorsModule } from './operators/operators.module';
import {
  INVALID_INPUT_REPLY,
  IP_RATE_LIMITED_REPLY,
  PHONE_RATE_LIMITED_REPLY,
  SESSION_RATE_LIMITED_REPLY,
  UNAVAILABLE_REPLY,
} from './ussd-error.renderer';
import { USSD_PATH } from './ussd/ussd-route';

/** Bodies read through the strict validation pipe: a field they do not declare is a 400. */
const CLOSED_BODIES = [OrderStatusUpdate.name, TicketStatusUpdate.name];

const text = (schema: object, examples: Record<string, string>) => ({
  'text/plain': {
    schema: { type: 'string', ...schema },
    examples: Object.fromEntries(Object.entries(examples).map(([name, value]) => [name, { value }])),
  },
});

const rateLimitHeader = (description: string) => ({ description, schema: { type: 'integer' } });

/**
 * `POST /api/ussd` is a Fastify route of its own (ussd/ussd-route.ts), not a controller, so it is described here:
 * it answers `text/plain` only, and every refusal but the per-IP limit is a 200 `END …` text, since the aggregator
 * shows whatever it gets on the subscriber's screen (ussd-error.renderer.ts).
 */
const USSD_HOP = {
  post: {
    tags: ['USSD'],
    operationId: 'ussdHop',
    summary: "One hop of a USSD session: the aggregator's callback",
    description:
      'The aggregator posts every hop of a session with the whole input so far (`text`); the answer is the next ' +
      'screen, `CON …` to keep the session open or `END …` to close it. A body that is not a session request, a ' +
      'body the parsers refuse (malformed, too large, another media type) and any client error are ' +
      `\`${INVALID_INPUT_REPLY}\`; an unavailable dependency is \`${UNAVAILABLE_REPLY}\`. Unauthenticated: ` +
      'counted per client address (per phone number for RATE_LIMIT_EXEMPT_CIDRS) and per session.',
    security: [],
    requestBody: {
      required: true,
      content: {
        'application/x-www-form-urlencoded': { schema: { $ref: '#/components/schemas/UssdSessionRequest' } },
        'application/json': { schema: { $ref: '#/components/schemas/UssdSessionRequest' } },
      },
    },
    responses: {
      '200': {
        description: 'The next screen, or the words of a refusal (an `END …` text)',
        headers: {
          'X-RateLimit-Limit': rateLimitHeader('Requests allowed per window to this caller'),
          'X-RateLimit-Remaining': rateLimitHeader('Requests left in the window'),
          'X-RateLimit-Reset': rateLimitHeader('Seconds until the window ends'),
        },
        content: text(
          { pattern: '^(CON|END) ' },
          {
            screen: 'CON Welcome\n1. Create account\n2. My account',
            invalidInput: INVALID_INPUT_REPLY,
            unavailable: UNAVAILABLE_REPLY,
            phoneRateLimited: PHONE_RATE_LIMITED_REPLY,
            sessionRateLimited: SESSION_RATE_LIMITED_REPLY,
          },
        ),
      },
      '429': {
        description:
          'Past the per-IP limit (aggregator addresses in RATE_LIMIT_EXEMPT_CIDRS are counted per phone)',
        headers: { 'Retry-After': rateLimitHeader('Seconds until the caller is admitted again') },
        content: text({ enum: [IP_RATE_LIMITED_REPLY] }, { ipRateLimited: IP_RATE_LIMITED_REPLY }),
      },
    },
  },
};

/**
 * The service's OpenAPI document: the operator and session-event endpoints generated from their controllers and
 * DTOs (@nestjs/swagger), and the hop (USSD_HOP). Operator endpoints need the x-operator-token header; without
 * OPERATOR_TOKEN configured they all answer 404, this document's own route included.
 */
export function buildUssdOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.0.3')
    .setTitle('USSD gateway API')
    .setVersion('1.0.0')
    .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
    .setDescription(
      'The USSD session endpoint the aggregator calls, its session-end notifications, and the endpoints of the ' +
        "programme's staff: sessions, orders and stove-problem tickets from the USSD menus (amounts in minor " +
        'units). Operator endpoints need the x-operator-token header; without OPERATOR_TOKEN configured they all ' +
        'answer 404.',
    )
    .addServer('/', 'this gateway')
    .addTag('USSD', "The aggregator's session callback")
    .addTag('Session events', "The aggregator's session-end notifications, and their list for operators")
    .addTag('Operators', 'Sessions, orders and tickets for the programme staff')
    .addApiKey(OPERATOR_TOKEN_SECURITY, OPERATOR_TOKEN_SCHEME)
    .addApiKey(EVENTS_TOKEN_SCHEMES.eventsTokenHeader, 'eventsTokenHeader')
    .addApiKey(EVENTS_TOKEN_SCHEMES.eventsTokenQuery, 'eventsTokenQuery')
    .addSecurityRequirements(OPERATOR_TOKEN_SCHEME)
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    include: [OperatorsModule, EventsModule],
    extraModels: [UssdSessionRequestBody],
  });
  const schemas = document.components!.schemas!;
  for (const name of CLOSED_BODIES) Object.assign(schemas[name]!, { additionalProperties: false });
  return { ...document, paths: { [USSD_PATH]: USSD_HOP, ...document.paths } } as OpenAPIObject;
}
