import type { DeploymentKeyRecord } from '../records';
import { asRow, BaseRepository } from './base.repository';

/** The deployment's own keys, one row per purpose (server/domain/agent-signing-keys.ts). */
export class DeploymentKeyRepository extends BaseRepository<DeploymentKeyRecord> {
  find(purpose: string) {
    return this.findOneBy({ purpose });
  }
  /** Inserts unless a row for the purpose exists: of two processes creating the key at once, the first one's is kept. */
  async insertIfAbsent(record: DeploymentKeyRecord): Promise<void> {
    await this.repo.createQueryBuilder().insert().values(asRow<DeploymentKeyRecord>(record)).orIgnore().updateEntity(false).execute();
  }
  /** Rows in purpose order after `after`, with their sealed keys (batches for key rotation). */
  listSealed(after: string, limit: number): Promise<Pick<DeploymentKeyRecord, 'purpose' | 'sealedKey'>[]> {
    return this.repo
      .createQueryBuilder('k')
      .select(['k.purpose', 'k.sealedKey'])
      .where('k.purpose > :after', { after })
      .orderBy('k.purpose', 'ASC')
      .take(limit)
      .getMany();
  }
  /** The purposes that start with `prefix` (the replaced signing keys still on record). */
  async purposesStartingWith(prefix: string): Promise<string[]> {
    const rows = await this.repo
      .createQueryBuilder('k')
      .select(['k.purpose'])
      .where('substr(k.purpose, 1, :n) = :prefix', { n: prefix.length, prefix })
      .getMany();
    return rows.map((r) => r.purpose);
  }
  async remove(purpose: string): Promise<void> {
    await this.repo.delete({ purpose });
  }
  /** Compare-and-set of the sealed key; false when it changed meanwhile. */
  async replaceSealed(purpose: string, expected: string, next: string) {
    const res = await this.repo.update({ purpose, sealedKey: expected }, { sealedKey: next });
    return (res.affected ?? 0) === 1;
  }
}
