import { IsNull } from 'typeorm';

import type { LinkTokenRecord } from '../records';
import { RecordRepository } from './base.repository';

export class LinkTokenRepository extends RecordRepository<LinkTokenRecord> {
  findByHash(tokenHash: string) {
    return this.findOneBy({ tokenHash });
  }
  /** Marks the token used; false when another caller used it first. */
  async markUsed(id: string, now: Date, connectionId: string) {
    const res = await this.repo.update({ id, usedAt: IsNull() }, { usedAt: now, connectionId });
    return (res.affected ?? 0) === 1;
  }
}
