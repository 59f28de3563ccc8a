import {
  DynamicModule,
  InjectionToken,
  Module,
  ModuleMetadata,
  OptionalFactoryDependency,
} from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller';
import { DependencyProbe } from './probes';
import { HEALTH_PROBES, ReadinessService } from './readiness.service';
import { SERVICE_NAME } from './tokens';

export interface HealthModuleOptions {
  service: string;
  imports?: ModuleMetadata['imports'];
  inject?: Array<InjectionToken | OptionalFactoryDependency>;
  probes: (...dependencies: never[]) => DependencyProbe[];
  /** Mount the default `/health` + `/health/live` controller (apps with their own health shape turn it off). */
  controller?: boolean;
}

@Module({})
export class HealthModule {
  static forRoot(options: HealthModuleOptions): DynamicModule {
    return {
      module: HealthModule,
      imports: [TerminusModule.forRoot({ errorLogStyle: 'json' }), ...(options.imports ?? [])],
      controllers: options.controller === false ? [] : [HealthController],
      providers: [
        { provide: SERVICE_NAME, useValue: options.service },
        {
          provide: HEALTH_PROBES,
          inject: options.inject ?? [],
          useFactory: options.probes as (...dependencies: unknown[]) => DependencyProbe[],
        },
        ReadinessService,
      ],
      exports: [ReadinessService],
    };
  }
}
