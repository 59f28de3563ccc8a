import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { REGISTRY_ENTITIES } from './entities/registry.entities';
import { RegistryController } from './registry.controller';
import { RegistryRepository } from './registry.repository';
import { RegistryService } from './registry.service';
import { SqlReader } from '../database/sql-reader';

@Module({
  imports: [TypeOrmModule.forFeature(REGISTRY_ENTITIES)],
  controllers: [RegistryController],
  providers: [SqlReader, RegistryService, RegistryRepository],
})
export class RegistryModule {}
