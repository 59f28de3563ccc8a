import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { ApiClientEntity } from './api-client.entity';

export interface ApiClientCredentialRow {
  id: string;
  secretHash: string;
}

@Injectable()
export class ApiClientsRepository {
  constructor(@InjectRepository(ApiClientEntity) private readonly clients: Repository<ApiClientEntity>) {}

  /** Only clients that are not revoked can authenticate. */
  async findActive(id: string): Promise<ApiClientCredentialRow | null> {
    const client = await this.clients.findOne({ select: { id: true, secretHash: true }, where: { id, revokedAt: IsNull() } });
    return client ? { id: client.id, secretHash: client.secretHash } : null;
  }
}
