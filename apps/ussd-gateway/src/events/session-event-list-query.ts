import { PipeTransform } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches, ValidateBy } from 'class-validator';
import { BoundedString, OPERATOR_PARAMETER_MAX_LENGTH as MAX } from '../contract/parameter-limits';
import { E164 } from '../contract/ussd-fields';
import { SESSION_EVENT_STATUSES, SessionEventStatus } from './session-event';
import type { SessionEventFilter } from './session-events.repository';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

/** Opaque to clients: the id of the last event of a page, so that nobody builds one by counting. */
export const encodeCursor = (id: number): string => Buffer.from(`e${id}`, 'utf8').toString('base64url');

function decodeCursor(cursor: string): number | undefined {
  const match = /^e([1-9]\d{0,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  // Only the canonical spelling of a cursor we could have issued.
  return match && encodeCursor(Number(match[1])) === cursor ? Number(match[1]) : undefined;
}

const isPageSize = (value: unknown): boolean =>
  typeof value === 'string' &&
  /^\d{1,3}$/.test(value) &&
  Number(value) >= 1 &&
  Number(value) <= MAX_PAGE_SIZE;

/** `GET /api/ussd/events`'s query. Each property's rules run bottom to top: given once and short enough first. */
export class SessionEventListQuery {
  @ApiPropertyOptional({
    description: 'Only this outcome',
    enum: SESSION_EVENT_STATUSES,
    maxLength: MAX.status,
  })
  @IsOptional()
  @IsIn(SESSION_EVENT_STATUSES, { message: `status must be one of ${SESSION_EVENT_STATUSES.join(', ')}` })
  @BoundedString('status')
  status?: SessionEventStatus;

  @ApiPropertyOptional({
    description: 'Only this phone number (E.164)',
    pattern: E164.source,
    maxLength: MAX.phoneNumber,
  })
  @IsOptional()
  @Matches(E164, { message: 'phoneNumber must be an E.164 number such as +254712345678' })
  @BoundedString('phoneNumber')
  phoneNumber?: string;

  @ApiPropertyOptional({ description: '`nextCursor` of the previous page', maxLength: MAX.cursor })
  @IsOptional()
  @ValidateBy({
    name: 'isEventCursor',
    validator: {
      validate: (value) => typeof value === 'string' && decodeCursor(value) !== undefined,
      defaultMessage: () => 'cursor is not one this service gave out',
    },
  })
  @BoundedString('cursor')
  cursor?: string;

  @ApiPropertyOptional({
    description: `Events per page, 1–${MAX_PAGE_SIZE}`,
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
  })
  @IsOptional()
  @ValidateBy({
    name: 'isEventPageSize',
    validator: {
      validate: isPageSize,
      defaultMessage: () => `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`,
    },
  })
  @BoundedString('limit')
  limit?: string;
}

const KNOWN_PARAMETERS = ['status', 'phoneNumber', 'cursor', 'limit'] as const;

/**
 * Keeps only the parameters the list reads, before the strict validation pipe: any other parameter (prototype
 * names included) is ignored, not refused, as the aggregator's own extra fields are everywhere in this service.
 */
export class KnownEventListParameters implements PipeTransform<unknown, Record<string, unknown>> {
  transform(query: unknown): Record<string, unknown> {
    const fields = typeof query === 'object' && query !== null ? (query as Record<string, unknown>) : {};
    const known: Record<string, unknown> = {};
    for (const name of KNOWN_PARAMETERS)
      if (Object.prototype.hasOwnProperty.call(fields, name)) known[name] = fields[name];
    return known;
  }
}

/** The filter of a checked query. */
export const eventFilterOf = (query: SessionEventListQuery): SessionEventFilter => ({
  limit: query.limit === undefined ? DEFAULT_PAGE_SIZE : Number(query.limit),
  ...(query.status === undefined ? {} : { status: query.status }),
  ...(query.phoneNumber === undefined ? {} : { phoneNumber: query.phoneNumber }),
  ...(query.cursor === undefined ? {} : { before: decodeCursor(query.cursor) }),
});
