import { DataSource, IsNull } from 'typeorm';
import { ApiClientEntity } from '../database/api-client.entity';
import { bearerKey, generateClientCredentials, hashSecret } from '../auth/credentials';

export interface CreatedClient {
  clientId: string;
  secret: string;
  bearerKey: string;
}

export interface ClientSummary {
  client_id: string;
  name: string;
  created_at: string;
  revoked_at: string | null;
}

/** Creates an API client; the secret exists only in the return value, the database keeps its scrypt hash. */
export async function createClient(dataSource: DataSource, name: string): Promise<CreatedClient> {
  const credentials = generateClientCredentials();
  await dataSource.getRepository(ApiClientEntity).insert({
    id: credentials.clientId,
    name,
    secretHash: await hashSecret(credentials.secret),
    createdAt: new Date(),
    revokedAt: null,
  });
  return { clientId: credentials.clientId, secret: credentials.secret, bearerKey: bearerKey(credentials) };
}

export async function listClients(dataSource: DataSource): Promise<ClientSummary[]> {
  const clients = await dataSource
    .getRepository(ApiClientEntity)
    .find({ order: { createdAt: 'ASC', id: 'ASC' } });
  return clients.map((client) => ({
    client_id: client.id,
    name: client.name,
    created_at: client.createdAt.toISOString(),
    revoked_at: client.revokedAt ? client.revokedAt.toISOString() : null,
  }));
}

/** True when an active client was revoked; revoking twice or an unknown id is false. */
export async function revokeClient(dataSource: DataSource, clientId: string): Promise<boolean> {
  const result = await dataSource
    .getRepository(ApiClientEntity)
    .update({ id: clientId, revokedAt: IsNull() }, { revokedAt: new Date() });
  return (result.affected ?? 0) > 0;
}
