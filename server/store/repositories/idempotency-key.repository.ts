import { LessThan } from 'typeorm';

import type { IdempotencyKeyRecord } from '../records';
import { asRow, BaseRepository } from './base.repository';

/** Claimed Idempotency-Keys. Every change is one conditional statement keyed by the claim id (no transactions). */
export class IdempotencyKeyRepository extends BaseRepository<IdempotencyKeyRecord> {
  /** Inserts the claim; false when a row with this id already exists (another request holds or held the key). */
  async claim(record: IdempotencyKeyRecord): Promise<boolean> {
    try {
      await this.insertRows(record);
      return true;
    } catch (err) {
      if (await this.repo.existsBy({ id: record.id })) return false;
      throw err;
    }
  }
  findById(id: string) {
    return this.findOneBy({ id });
  }
  /** Replaces an expired or abandoned row with a new claim; false when someone else replaced it first. */
  async takeOver(previousClaimId: string, record: IdempotencyKeyRecord): Promise<boolean> {
    const { id, ...rest } = record;
    const res = await this.repo.update({ id, claimId: previousClaimId }, asRow<IdempotencyKeyRecord>(rest));
    return (res.affected ?? 0) === 1;
  }
  async complete(id: string, claimId: string, responseStatus: number, sealedResponse: string) {
    const res = await this.repo.update({ id, claimId, status: 'IN_PROGRESS' }, { status: 'DONE', responseStatus, sealedResponse });
    return (res.affected ?? 0) === 1;
  }
  /** Gives the key up (the request failed on our side) so a retry runs again. */
  async release(id: string, claimId: string) {
    await this.repo.delete({ id, claimId, status: 'IN_PROGRESS' });
  }
  async deleteExpired(now: Date) {
    await this.repo.delete({ expiresAt: LessThan(now) });
  }
}
