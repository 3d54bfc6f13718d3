import { IsNull } from 'typeorm';

import type { Environment } from '../../config';
import type { AccessTokenRecord, ConnectionRecord, ConnectionStatus } from '../records';
import { RecordRepository } from './base.repository';

/** What an agent request needs of an access token and its connection (one joined lookup). */
export interface AccessGrant {
  organizationId: string;
  environment: Environment;
  revoked: boolean;
  connection: Pick<ConnectionRecord, 'id' | 'providerId' | 'clientUserId' | 'status'>;
}

const GRANT_SQL =
  'SELECT t.organization_id, t.environment, CASE WHEN t.revoked_at IS NULL THEN 0 ELSE 1 END AS revoked, ' +
  'c.id AS connection_id, c.provider_id, c.client_user_id, c.status ' +
  'FROM access_tokens t JOIN connections c ON c.id = t.connection_id WHERE t.token_hash = $1';

export class AccessTokenRepository extends RecordRepository<AccessTokenRecord> {
  /** The token's grant with its connection's state in one prepared query: paid on every agent request. */
  async findGrant(tokenHash: string): Promise<AccessGrant | null> {
    const { rows } = await this.sql.query<Record<string, string | number>>(GRANT_SQL, [tokenHash]);
    const r = rows[0];
    if (!r) return null;
    return {
      organizationId: String(r.organization_id),
      environment: r.environment as Environment,
      revoked: Number(r.revoked) === 1,
      connection: {
        id: String(r.connection_id),
        providerId: String(r.provider_id),
        clientUserId: String(r.client_user_id),
        status: r.status as ConnectionStatus,
      },
    };
  }
  findByHash(tokenHash: string) {
    return this.findOneBy({ tokenHash });
  }
  async revokeAllForConnection(connectionId: string, now: Date) {
    await this.repo.update({ connectionId, revokedAt: IsNull() }, { revokedAt: now });
  }
}
