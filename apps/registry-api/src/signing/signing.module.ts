import { DynamicModule, Logger, Module, OnModuleInit } from '@nestjs/common';
import { JwksController, PUBLISHED_KEYS } from './jwks.controller';
import type { SigningKeys } from './signing-keys';

/** What start-up says about signing: which key signs, or that nothing does. */
export function signingNotice(
  keys: SigningKeys,
  disabled: boolean,
): { level: 'log' | 'warn'; message: string } {
  if (keys.current !== undefined)
    return {
      level: 'log',
      message: `answers and export manifests are signed with key ${keys.current.publicJwk.kid}`,
    };
  return {
    level: 'warn',
    message: disabled
      ? 'SIGNING_DISABLED=true: answers go out unsigned'
      : 'SIGNING_KEY is unset: answers go out unsigned (production refuses to start this way)',
  };
}

class SigningNotice implements OnModuleInit {
  constructor(private readonly notice: ReturnType<typeof signingNotice>) {}

  onModuleInit(): void {
    new Logger('Signing')[this.notice.level](this.notice.message);
  }
}

/** The key set on `GET /v1/jwks.json`, and the start-up line about signing. The signing itself is a Fastify hook. */
@Module({})
export class SigningModule {
  static forRoot(keys: SigningKeys, disabled: boolean): DynamicModule {
    return {
      module: SigningModule,
      controllers: [JwksController],
      providers: [
        { provide: PUBLISHED_KEYS, useValue: keys.jwks },
        { provide: SigningNotice, useValue: new SigningNotice(signingNotice(keys, disabled)) },
      ],
    };
  }
}
