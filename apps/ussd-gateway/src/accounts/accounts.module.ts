import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UssdConfig } from '../config/ussd.config';
import { AccountEntity } from './account.entity';
import { AccountsRepository } from './accounts.repository';
import { AccountsService, PIN_VAULT } from './accounts.service';
import { PhoneEntity } from './phone.entity';
import { pinVaultFromConfig } from './pin-vault';

@Module({})
export class AccountsModule {
  static forRoot(config: UssdConfig): DynamicModule {
    return {
      module: AccountsModule,
      imports: [TypeOrmModule.forFeature([AccountEntity, PhoneEntity])],
      providers: [
        AccountsRepository,
        AccountsService,
        { provide: PIN_VAULT, useFactory: () => pinVaultFromConfig(config) },
        { provide: UssdConfig, useValue: config },
      ],
      exports: [AccountsService],
    };
  }
}
