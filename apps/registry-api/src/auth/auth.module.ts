import { DynamicModule, Module } from '@nestjs/common';
import { RegistryConfig } from '../config/registry.config';
import { SqlReader } from '../database/sql-reader';
import { ApiClientsRepository } from './api-clients.repository';
import { AuthService } from './auth.service';

@Module({})
export class AuthModule {
  static forRoot(config: RegistryConfig): DynamicModule {
    return {
      module: AuthModule,
      providers: [{ provide: RegistryConfig, useValue: config }, SqlReader, ApiClientsRepository, AuthService],
      exports: [AuthService],
    };
  }
}
