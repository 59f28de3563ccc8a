import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { E164, SERVICE_CODE, SERVICE_CODE_MAX, SESSION_ID_MAX, TEXT_MAX } from './ussd-fields';

/**
 * The body of `POST /api/ussd` for the OpenAPI document (the hop reads it with USSD_FIELD_RULES, not a pipe). Lengths
 * are in characters; `sessionId` and `text` hold no control characters. Fields beyond these are ignored.
 */
@ApiSchema({ name: 'UssdSessionRequest' })
export class UssdSessionRequestBody {
  @ApiProperty({ minLength: 1, maxLength: SESSION_ID_MAX, example: 'ATUid_5e1b2c' })
  sessionId!: string;

  @ApiProperty({ pattern: SERVICE_CODE.source, maxLength: SERVICE_CODE_MAX, example: '*384#' })
  serviceCode!: string;

  @ApiProperty({ pattern: E164.source, maxLength: 16, example: '+254712345678' })
  phoneNumber!: string;

  @ApiProperty({
    maxLength: TEXT_MAX,
    description: 'Every input of the session so far, joined by `*`; empty on the dial',
    example: '1*2',
  })
  text!: string;
}
