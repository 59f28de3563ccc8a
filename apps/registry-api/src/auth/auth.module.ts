import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RegistryConfig } from '../config/registry.config';
import { ApiClientEntity } from './api-client.entity';
import { ApiClientsRepository } from './api-clients.repository';
import { AuthService } from './auth.service';

@Module({})
export class AuthModule {
  static forRoot(config: RegistryConfig): DynamicModule {
    return {
      module: AuthModule,
      imports: [TypeOrmModule.forFeature([ApiClientEntity])],
      providers: [{ provide: RegistryConfig, useValue: config }, ApiClientsRepository, AuthService],
      exports: [AuthService],
    };
  }
}
