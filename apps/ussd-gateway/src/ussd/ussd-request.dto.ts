import { IsDefined, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import type { UssdSessionRequest } from '@dmrv/contracts';

/** No control characters: `text` is shown back on screens and written to the store. */
const PRINTABLE = /^\P{Cc}*$/u;

export class UssdRequestDto implements UssdSessionRequest {
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  @Matches(PRINTABLE)
  sessionId!: string;

  @IsDefined()
  @IsString()
  @Matches(/^\*\d{1,6}(\*\d{1,6})*#$/, { message: 'serviceCode must look like *123# or *123*4#' })
  serviceCode!: string;

  @IsDefined()
  @IsString()
  @Matches(/^\+[1-9]\d{6,14}$/, { message: 'phoneNumber must be in E.164 format (+ and up to 15 digits)' })
  phoneNumber!: string;

  @IsDefined()
  @IsString()
  @MaxLength(182)
  @Matches(PRINTABLE)
  text!: string;
}
