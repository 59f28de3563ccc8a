import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UssdConfig } from '../config/ussd.config';
import { AccountEntity } from './account.entity';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { PhoneEntity } from './phone.entity';
import { PinHashGate, pinHashGateFromConfig } from './pin-hash-gate';
import { PinVault, pinVaultFromConfig } from './pin-vault';

@Module({
  imports: [TypeOrmModule.forFeature([AccountEntity, PhoneEntity])],
  providers: [
    AccountsRepository,
    AccountsService,
    { provide: PinVault, inject: [UssdConfig], useFactory: pinVaultFromConfig },
    { provide: PinHashGate, inject: [UssdConfig], useFactory: pinHashGateFromConfig },
  ],
  exports: [AccountsService],
})
export class AccountsModule {}
