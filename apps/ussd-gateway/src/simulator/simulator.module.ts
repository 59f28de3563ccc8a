import { DynamicModule, Logger, Module, OnModuleInit } from '@nestjs/common';
import { UssdConfig } from '../config/ussd.config';
import { screenMeterRules } from './screen-meter';
import { SIMULATOR_PAGE, SimulatorController } from './simulator.controller';
import { simulatorPage } from './simulator-page';

/** What the page's fields hold at first: a Kenyan test number and network (Safaricom), any service code. */
export const SIMULATOR_DEFAULTS = {
  serviceCode: '*384#',
  phoneNumber: '+254700000001',
  networkCode: '63902',
};

/** What start-up says about the simulator in `environment`, if anything. */
export function simulatorStartupWarning(environment: string): string | undefined {
  // Not refused: the page can do nothing a caller of /api/ussd cannot, but it has no business on a public address.
  return environment === 'production'
    ? 'SIMULATOR_ENABLED=true in production: GET /simulator is served; turn it off unless this is a test deployment'
    : undefined;
}

class SimulatorNotice implements OnModuleInit {
  constructor(private readonly environment: string) {}

  onModuleInit(): void {
    const warning = simulatorStartupWarning(this.environment);
    if (warning !== undefined) new Logger('Simulator').warn(warning);
  }
}

/**
 * `GET /simulator`, a handset in the browser, only with SIMULATOR_ENABLED; otherwise the route does not exist at
 * all (a 404 like any unknown path).
 */
@Module({})
export class SimulatorModule {
  static forRoot(config: UssdConfig): DynamicModule {
    if (!config.SIMULATOR_ENABLED) return { module: SimulatorModule };
    return {
      module: SimulatorModule,
      controllers: [SimulatorController],
      providers: [
        { provide: SIMULATOR_PAGE, useFactory: () => simulatorPage(screenMeterRules(), SIMULATOR_DEFAULTS) },
        { provide: SimulatorNotice, useFactory: () => new SimulatorNotice(config.NODE_ENV) },
      ],
    };
  }
}
