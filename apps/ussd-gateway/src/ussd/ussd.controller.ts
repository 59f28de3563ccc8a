import { BadRequestException, Body, Controller, Header, HttpCode, Post, ValidationPipe } from '@nestjs/common';
import { UssdRequestDto } from './ussd-request.dto';
import { UssdSessionService } from './ussd-session.service';

/**
 * Aggregators add fields of their own (`networkCode`, …): unknown fields are dropped, not refused. Every rule
 * failure becomes the one invalid-input text (see ussd-error.renderer.ts).
 */
const ussdValidationPipe = new ValidationPipe({
  whitelist: true,
  forbidNonWhitelisted: false,
  transform: true,
  stopAtFirstError: true,
  validationError: { target: false, value: false },
  exceptionFactory: (errors) => new BadRequestException(errors.map((error) => error.property).join(', ')),
});

@Controller('api/ussd')
export class UssdController {
  constructor(private readonly sessions: UssdSessionService) {}

  @Post()
  @HttpCode(200)
  @Header('content-type', 'text/plain; charset=utf-8')
  session(@Body(ussdValidationPipe) body: UssdRequestDto): Promise<string> {
    return this.sessions.handle(body);
  }
}
