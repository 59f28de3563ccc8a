import { ApiProperty, ApiSchema } from '@nestjs/swagger';

/** Every JSON error of the service: `{ "message" }` (the app's error filter writes it). */
@ApiSchema({ name: 'Error' })
export class ErrorBody {
  @ApiProperty({ type: 'string' })
  message!: string;
}
