import { IsNull } from 'typeorm';

import type { PublicTokenRecord } from '../records';
import { RecordRepository } from './base.repository';

export class PublicTokenRepository extends RecordRepository<PublicTokenRecord> {
  findByHash(tokenHash: string) {
    return this.findOneBy({ tokenHash });
  }
  /** Claims the one exchange this token allows; false when it was already exchanged. */
  async claimExchange(id: string, now: Date) {
    const res = await this.repo.update({ id, exchangedAt: IsNull() }, { exchangedAt: now });
    return (res.affected ?? 0) === 1;
  }
  async releaseExchange(id: string) {
    await this.repo.update({ id }, { exchangedAt: null });
  }
}
