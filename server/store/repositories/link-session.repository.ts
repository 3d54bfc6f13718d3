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
  /** Records which API process holds the session's in-memory part (the last one to take it on). */
  async setHost(id: string, hostUrl: string) {
    await this.repo.update({ id }, { hostUrl });
  }
  /** Forgets a holder that could not be reached, unless another process has taken the session on since. */
  async clearHost(id: string, hostUrl: string) {
    await this.repo.update({ id, hostUrl }, { hostUrl: null });
  }
  /** Moves a session on only from one of the `from` states; false when a concurrent step moved it first. */
  async transition(id: string, from: LinkSessionStatus[], patch: Partial<Omit<LinkSessionRecord, 'id'>>) {
    const res = await this.repo.update({ id, status: In(from) }, patch);
    return (res.affected ?? 0) === 1;
  }
}
