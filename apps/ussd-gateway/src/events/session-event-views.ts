import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { E164, SERVICE_CODE, SERVICE_CODE_MAX, SESSION_ID_MAX } from '../contract/ussd-fields';
import { SESSION_EVENT_FIELD_MAX as MAX, SESSION_EVENT_STATUSES, SessionEventStatus } from './session-event';
import type { SessionEventList } from './session-events.service';
import type { SessionEventRecord } from './session-events.repository';

// The session events' bodies, for the OpenAPI document (parseSessionEvent reads the notification; its limits are
// these). A form body carries the counts as digits.

const COUNT = { type: 'integer', minimum: 0, maximum: 2_147_483_647 } as const;

@ApiSchema({ name: 'SessionEndNotification' })
export class SessionEndNotificationBody {
  @ApiProperty({ minLength: 1, maxLength: SESSION_ID_MAX }) sessionId!: string;
  @ApiProperty({ pattern: E164.source, maxLength: MAX.phoneNumber }) phoneNumber!: string;
  @ApiProperty({ pattern: SERVICE_CODE.source, maxLength: SERVICE_CODE_MAX }) serviceCode!: string;
  @ApiProperty({ enum: SESSION_EVENT_STATUSES }) status!: SessionEventStatus;
  @ApiPropertyOptional({ pattern: '^\\d{1,10}$' }) networkCode?: string;
  @ApiPropertyOptional(COUNT) durationInMillis?: number;
  @ApiPropertyOptional(COUNT) hopsCount?: number;
  @ApiPropertyOptional({ maxLength: MAX.lastAppResponse }) lastAppResponse?: string;
  @ApiPropertyOptional({ maxLength: MAX.errorMessage }) errorMessage?: string;
  @ApiPropertyOptional({ maxLength: MAX.cost, example: 'KES 0.0000' }) cost?: string;
  @ApiPropertyOptional({ maxLength: MAX.date, example: '2026-11-23 13:05:09' }) date?: string;
  @ApiPropertyOptional({ maxLength: MAX.input, description: 'Checked for its shape, never kept nor logged' })
  input?: string;
}

@ApiSchema({ name: 'SessionEventReceipt' })
export class SessionEventReceipt {
  @ApiProperty({ enum: ['recorded', 'duplicate'] }) status!: 'recorded' | 'duplicate';
}

@ApiSchema({ name: 'SessionEvent' })
export class SessionEventView implements SessionEventRecord {
  @ApiProperty() sessionId!: string;
  @ApiProperty() phoneNumber!: string;
  @ApiProperty() serviceCode!: string;
  @ApiProperty({ type: 'string', nullable: true }) networkCode!: string | null;
  @ApiProperty({ enum: SESSION_EVENT_STATUSES }) status!: SessionEventStatus;
  @ApiProperty({ type: 'integer', nullable: true }) durationInMillis!: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) hopsCount!: number | null;
  @ApiProperty({ type: 'string', nullable: true }) lastAppResponse!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) errorMessage!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) cost!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) date!: string | null;
  @ApiProperty() sessionClosed!: boolean;
  @ApiProperty({ format: 'date-time' }) receivedAt!: string;
}

@ApiSchema({ name: 'SessionEventPage' })
export class SessionEventPageView implements SessionEventList {
  @ApiProperty({ type: () => SessionEventView, isArray: true }) events!: SessionEventView[];
  @ApiProperty({ type: 'string', nullable: true }) nextCursor!: string | null;
}
