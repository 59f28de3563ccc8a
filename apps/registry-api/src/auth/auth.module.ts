import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiClientEntity } from './api-client.entity';
import { ApiClientsRepository } from './api-clients.repository';
import { AuthService } from './auth.service';

@Module({
  imports: [TypeOrmModule.forFeature([ApiClientEntity])],
  providers: [ApiClientsRepository, AuthService],
  exports: [AuthService],
})
export class AuthModule {}
