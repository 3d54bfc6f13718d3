import { In } from 'typeorm';

import type { LinkSessionRecord, LinkSessionStatus } from '../records';
import { RecordRepository } from './base.repository';

export class LinkSessionRepository extends RecordRepository<LinkSessionRecord> {
  findById(id: string) {
    return this.findOneBy({ id });
  }
  listForLinkToken(linkTokenId: string) {
    return this.repo.find({ where: { linkTokenId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }
  /** Moves a session on only from one of the `from` states; false when a concurrent step moved it first. */
  async transition(id: string, from: LinkSessionStatus[], patch: Partial<Omit<LinkSessionRecord, 'id'>>) {
    const res = await this.repo.update({ id, status: In(from) }, patch);
    return (res.affected ?? 0) === 1;
  }
}
