import type { ConnectionSettingsRecord } from '../records';
import { asRow, BaseRepository, type Owner } from './base.repository';

/** An organization's connection settings, one row per environment (absent: every setting at its default). */
export class ConnectionSettingsRepository extends BaseRepository<ConnectionSettingsRecord> {
  findOwned(owner: Owner) {
    return this.findOneBy({ organizationId: owner.organizationId, environment: owner.environment });
  }
  /** Whether any organization signs its agent's requests (Web Bot Auth), in any environment. */
  async anySignedAgent(): Promise<boolean> {
    return (await this.repo.countBy({ signedAgent: true })) > 0;
  }
  /** Writes the whole row (insert or replace): the service merges a change into what it read. */
  async save(record: ConnectionSettingsRecord): Promise<void> {
    await this.repo.upsert(asRow<ConnectionSettingsRecord>(record), ['organizationId', 'environment']);
  }
}
