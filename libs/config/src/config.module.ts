import { DynamicModule, Module, Type } from '@nestjs/common';

/**
 * The app's validated configuration, provided once for every module: feature modules inject the config class itself
 * (`constructor(private readonly config: RegistryConfig)`), so there is no string token to misspell and the value is
 * the one `loadConfig` checked at start-up.
 */
@Module({})
export class ConfigModule {
  static forRoot<Config extends object>(configClass: Type<Config>, config: Config): DynamicModule {
    if (!(config instanceof configClass)) {
      throw new TypeError(`ConfigModule.forRoot: the value given is not a ${configClass.name}`);
    }
    return {
      module: ConfigModule,
      global: true,
      providers: [{ provide: configClass, useValue: config }],
      exports: [configClass],
    };
  }
}
