import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ConfigModule } from './config.module';

class ExampleConfig {
  PORT = 3000;
}

@Injectable()
class NeedsConfig {
  constructor(readonly config: ExampleConfig) {}
}

@Module({ providers: [NeedsConfig] })
class FeatureModule {}

describe('ConfigModule', () => {
  it('provides the validated config to every module by its class, without the feature module importing it', async () => {
    const config = Object.assign(new ExampleConfig(), { PORT: 4321 });
    const app = await Test.createTestingModule({
      imports: [ConfigModule.forRoot(ExampleConfig, config), FeatureModule],
    }).compile();

    expect(app.get(NeedsConfig).config).toBe(config);
    expect(app.get(ExampleConfig).PORT).toBe(4321);
    await app.close();
  });

  it('refuses a value that is not an instance of the config class (an unvalidated plain object)', () => {
    expect(() => ConfigModule.forRoot(ExampleConfig, { PORT: 1 })).toThrow(
      new TypeError('ConfigModule.forRoot: the value given is not a ExampleConfig'),
    );
  });
});
