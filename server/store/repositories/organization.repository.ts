import type { Environment } from '../../config';
import type { OrganizationRecord } from '../records';
import { RecordRepository } from './base.repository';

const CREDENTIALS_SQL = 'SELECT id, sandbox_secret_hash, production_secret_hash, disabled_at FROM organizations WHERE client_id = $1';

export class OrganizationRepository extends RecordRepository<OrganizationRecord> {
  findByClientId(clientId: string) {
    return this.findOneBy({ clientId });
  }
  /** Only what authenticating a request needs (paid on every API call: one narrow prepared query). */
  async findCredentials(
    clientId: string,
  ): Promise<(Pick<OrganizationRecord, 'id' | 'sandboxSecretHash' | 'productionSecretHash'> & { disabled: boolean }) | null> {
    const { rows } = await this.sql.query<Record<string, string | null>>(CREDENTIALS_SQL, [clientId]);
    const r = rows[0];
    return r
      ? {
          id: r.id!,
          sandboxSecretHash: r.sandbox_secret_hash!,
          productionSecretHash: r.production_secret_hash!,
          disabled: r.disabled_at != null,
        }
      : null;
  }
  findById(id: string) {
    return this.findOneBy({ id });
  }
  list() {
    return this.repo.find({ order: { createdAt: 'ASC' } });
  }
  /** Sets or clears disabled_at; false when there is no such organization. */
  async setDisabled(id: string, disabledAt: Date | null, now: Date) {
    const res = await this.repo.update({ id }, { disabledAt, updatedAt: now });
    return (res.affected ?? 0) > 0;
  }
  async setSecretHash(id: string, environment: Environment, hash: string, now: Date) {
    const column = environment === 'sandbox' ? 'sandboxSecretHash' : 'productionSecretHash';
    const res = await this.repo.update({ id }, { [column]: hash, updatedAt: now });
    return (res.affected ?? 0) > 0;
  }
}
