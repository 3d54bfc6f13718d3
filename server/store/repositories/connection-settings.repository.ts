import type { ConnectionSettingsRecord } from '../records';
import { asRow, BaseRepository, type Owner } from './base.repository';

/** An organization's connection settings, one row per environment (absent: every setting at its default). */
export class ConnectionSettingsRepository extends BaseRepository<ConnectionSettingsRecord> {
  findOwned(owner: Owner) {
    return this.findOneBy({ organizationId: owner.organizationId, environment: owner.environment });
  }
  /** Writes the whole row (insert or replace): the service merges a change into what it read. */
  async save(record: ConnectionSettingsRecord): Promise<void> {
    await this.repo.upsert(asRow<ConnectionSettingsRecord>(record), ['organizationId', 'environment']);
  }
}
