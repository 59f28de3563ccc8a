import {
  errorResponse,
  jsonContent,
  MESSAGE_ERROR_SCHEMA,
  OpenApiJson,
  queryParameter,
  schemaRef,
} from '@dmrv/contracts';
import {
  ORDER_STATUSES,
  ORDER_TRANSITIONS,
  TICKET_CATEGORIES,
  TICKET_STATUSES,
  TICKET_TRANSITIONS,
} from '../orders/order-rules';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from './operator-queries';
import { OPERATOR_PARAMETER_MAX_LENGTH as MAX } from '../contract/parameter-limits';

const transitionsText = (transitions: Record<string, readonly string[]>): string =>
  Object.entries(transitions)
    .map(([from, to]) => `${from} → ${to.length > 0 ? to.join(' | ') : '(final)'}`)
    .join('; ');

const timestamps = {
  createdAt: { type: 'string', format: 'date-time' },
  updatedAt: { type: 'string', format: 'date-time' },
};

const listParameters = (statuses: readonly string[]): OpenApiJson[] => [
  queryParameter('status', 'Only this status', {
    type: 'string',
    enum: [...statuses],
    maxLength: MAX.status,
  }),
  queryParameter('phone', 'Only what this phone number (E.164) sent', {
    type: 'string',
    pattern: '^\\+\\d{7,15}$',
    maxLength: MAX.phone,
  }),
  queryParameter('from', 'Created at or after (YYYY-MM-DD or ISO 8601 date-time with zone)', {
    type: 'string',
    maxLength: MAX.from,
  }),
  queryParameter('to', 'Created before (a bare date includes that day)', {
    type: 'string',
    maxLength: MAX.to,
  }),
  queryParameter('cursor', '`nextCursor` of the previous page', { type: 'string', maxLength: MAX.cursor }),
  queryParameter('limit', `Items per page, 1–${LIST_LIMIT_MAX}`, {
    type: 'integer',
    minimum: 1,
    maximum: LIST_LIMIT_MAX,
    default: LIST_LIMIT_DEFAULT,
  }),
];

const pageSchema = (item: string): OpenApiJson => ({
  type: 'object',
  required: ['items', 'nextCursor'],
  properties: {
    items: { type: 'array', items: schemaRef(item) },
    nextCursor: { type: 'string', nullable: true },
  },
});

const FAILURES = {
  '400': errorResponse('A parameter or the body is not valid (the message names it)'),
  '401': errorResponse('Missing or wrong x-operator-token'),
  '404': errorResponse('No such record (and every path while OPERATOR_TOKEN is unset)'),
  '503': errorResponse('PostgreSQL is unavailable'),
};

function resource(
  name: 'order' | 'ticket',
  statuses: readonly string[],
  transitions: Record<string, readonly string[]>,
): OpenApiJson {
  const Item = name === 'order' ? 'Order' : 'Ticket';
  const numberName = `${name}Number` as const;
  return {
    [`/api/ussd/${name}s`]: {
      get: {
        tags: ['Operators'],
        operationId: `list${Item}s`,
        summary: `${Item}s, newest first`,
        parameters: listParameters(statuses),
        responses: {
          '200': { description: 'One page', content: jsonContent(schemaRef(`${Item}Page`)) },
          ...FAILURES,
        },
      },
    },
    [`/api/ussd/${name}s/{${numberName}}`]: {
      patch: {
        tags: ['Operators'],
        operationId: `update${Item}Status`,
        summary: `Move a ${name} to another status`,
        description: `Allowed: ${transitionsText(transitions)}.`,
        parameters: [
          {
            name: numberName,
            in: 'path',
            required: true,
            schema: { type: 'string', maxLength: MAX[numberName] },
          },
        ],
        requestBody: {
          required: true,
          content: jsonContent({
            type: 'object',
            required: ['status'],
            additionalProperties: false,
            properties: { status: { type: 'string', enum: [...statuses] } },
          }),
        },
        responses: {
          '200': { description: `The ${name} as it is now`, content: jsonContent(schemaRef(Item)) },
          ...FAILURES,
          '409': errorResponse('The transition is not allowed from the current status'),
        },
      },
    },
  };
}

/** The OpenAPI document of the gateway's operator endpoints, served at `GET /api/ussd/openapi.json`. */
export function buildOperatorOpenApiDocument(): OpenApiJson {
  return {
    openapi: '3.0.3',
    info: {
      title: 'USSD gateway operator API',
      version: '1.0.0',
      license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
      description:
        'Orders and stove-problem tickets from the USSD menus, for the programme staff. Every operation needs the ' +
        'x-operator-token header; without OPERATOR_TOKEN configured they all answer 404. Amounts are in minor units.',
    },
    servers: [{ url: '/', description: 'this gateway' }],
    tags: [{ name: 'Operators', description: 'Orders and tickets of the programme staff' }],
    security: [{ operatorToken: [] }],
    paths: {
      ...resource('order', ORDER_STATUSES, ORDER_TRANSITIONS),
      ...resource('ticket', TICKET_STATUSES, TICKET_TRANSITIONS),
    },
    components: {
      securitySchemes: { operatorToken: { type: 'apiKey', in: 'header', name: 'x-operator-token' } },
      schemas: {
        Error: MESSAGE_ERROR_SCHEMA,
        Order: {
          type: 'object',
          required: [
            'orderNumber',
            'customerId',
            'phoneNumber',
            'productCode',
            'quantity',
            'unitPriceMinor',
            'totalMinor',
            'currency',
            'deliveryPoint',
            'status',
            'createdAt',
            'updatedAt',
          ],
          properties: {
            orderNumber: { type: 'string', example: 'F000042' },
            customerId: { type: 'string', example: 'C1A2B3C4D' },
            phoneNumber: { type: 'string' },
            productCode: { type: 'string' },
            quantity: { type: 'integer' },
            unitPriceMinor: { type: 'integer' },
            totalMinor: { type: 'integer' },
            currency: { type: 'string' },
            deliveryPoint: { type: 'string' },
            status: { type: 'string', enum: [...ORDER_STATUSES] },
            ...timestamps,
          },
        },
        Ticket: {
          type: 'object',
          required: [
            'ticketNumber',
            'customerId',
            'phoneNumber',
            'category',
            'note',
            'status',
            'createdAt',
            'updatedAt',
          ],
          properties: {
            ticketNumber: { type: 'string', example: 'T000007' },
            customerId: { type: 'string' },
            phoneNumber: { type: 'string' },
            category: { type: 'string', enum: [...TICKET_CATEGORIES] },
            note: { type: 'string', nullable: true },
            status: { type: 'string', enum: [...TICKET_STATUSES] },
            ...timestamps,
          },
        },
        OrderPage: pageSchema('Order'),
        TicketPage: pageSchema('Ticket'),
      },
    },
  };
}
