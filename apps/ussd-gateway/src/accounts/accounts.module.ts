import { Module } from '@nestjs/common';
import { UssdConfig } from '../config/ussd.config';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { PhonesRepository } from './phones.repository';
import { PinGuardsRepository } from './pin-guards.repository';
import { PinHashGate, pinHashGateFromConfig } from './pin-hash-gate';
import { PinKeyCheck } from './pin-key-check';
import { PinVault, pinVaultFromConfig } from './pin-vault';

@Module({
  providers: [
    AccountsRepository,
    PinGuardsRepository,
    PhonesRepository,
    AccountsService,
    PinKeyCheck,
    { provide: PinVault, inject: [UssdConfig], useFactory: pinVaultFromConfig },
    { provide: PinHashGate, inject: [UssdConfig], useFactory: pinHashGateFromConfig },
  ],
  exports: [AccountsService],
})
export class AccountsModule {}
