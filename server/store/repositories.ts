import { type DataSource, IsNull, type Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { Environment } from '../config';
import type {
  AccessTokenRecord,
  AgentRequestRecord,
  ConnectionRecord,
  ConnectionStatus,
  LinkTokenRecord,
  OrganizationRecord,
  PublicTokenRecord,
  SandboxDocRecord,
  SandboxSessionRecord,
  SandboxTenantRecord,
} from './records';

/**
 * The only code that issues queries. Each state change that must happen at most once is a single
 * conditional UPDATE whose affected-row count says who won, so it is race-safe on both engines
 * without multi-statement transactions (TypeORM shares one SQLite connection across callers).
 */

/** TypeORM's insert type cannot express free-form JSON columns; the record types are the real check. */
const row = <T>(record: T) => record as unknown as QueryDeepPartialEntity<T>;

export interface Owner {
  organizationId: string;
  environment: Environment;
}

export class OrganizationRepository {
  constructor(private readonly repo: Repository<OrganizationRecord>) {}

  insert(record: OrganizationRecord) {
    return this.repo.insert(record).then(() => record);
  }
  findByClientId(clientId: string) {
    return this.repo.findOneBy({ clientId });
  }
  findById(id: string) {
    return this.repo.findOneBy({ id });
  }
  list() {
    return this.repo.find({ order: { createdAt: 'ASC' } });
  }
  async setSecretHash(id: string, environment: Environment, hash: string, now: Date) {
    const column = environment === 'sandbox' ? 'sandboxSecretHash' : 'productionSecretHash';
    const res = await this.repo.update({ id }, { [column]: hash, updatedAt: now });
    return (res.affected ?? 0) > 0;
  }
}

export class LinkTokenRepository {
  constructor(private readonly repo: Repository<LinkTokenRecord>) {}

  insert(record: LinkTokenRecord) {
    return this.repo.insert(record).then(() => record);
  }
  findByHash(tokenHash: string) {
    return this.repo.findOneBy({ tokenHash });
  }
  /** Marks the token used; false when another caller used it first. */
  async markUsed(id: string, now: Date, connectionId: string) {
    const res = await this.repo.update({ id, usedAt: IsNull() }, { usedAt: now, connectionId });
    return (res.affected ?? 0) === 1;
  }
}

export class ConnectionRepository {
  constructor(private readonly repo: Repository<ConnectionRecord>) {}

  insert(record: ConnectionRecord) {
    return this.repo.insert(record).then(() => record);
  }
  findOwned(id: string, owner: Owner) {
    return this.repo.findOneBy({ id, organizationId: owner.organizationId, environment: owner.environment });
  }
  findById(id: string) {
    return this.repo.findOneBy({ id });
  }
  async setStatus(id: string, status: ConnectionStatus, now: Date) {
    await this.repo.update({ id }, { status, updatedAt: now });
  }
  async setSession(id: string, sealedSession: string | null, now: Date) {
    await this.repo.update({ id }, { sealedSession, updatedAt: now });
  }
  async touch(id: string, now: Date) {
    await this.repo.update({ id }, { lastUsedAt: now });
  }
  /** Revokes and forgets the stored session and credentials in one statement. */
  async revoke(id: string, now: Date) {
    await this.repo.update(
      { id },
      { status: 'REVOKED', sealedSession: null, sealedCredentials: null, revokedAt: now, updatedAt: now },
    );
  }
}

export class PublicTokenRepository {
  constructor(private readonly repo: Repository<PublicTokenRecord>) {}

  insert(record: PublicTokenRecord) {
    return this.repo.insert(record).then(() => record);
  }
  findByHash(tokenHash: string) {
    return this.repo.findOneBy({ tokenHash });
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

export class AccessTokenRepository {
  constructor(private readonly repo: Repository<AccessTokenRecord>) {}

  insert(record: AccessTokenRecord) {
    return this.repo.insert(record).then(() => record);
  }
  findByHash(tokenHash: string) {
    return this.repo.findOneBy({ tokenHash });
  }
  async revokeAllForConnection(connectionId: string, now: Date) {
    await this.repo.update({ connectionId, revokedAt: IsNull() }, { revokedAt: now });
  }
}

export class AgentRequestRepository {
  constructor(private readonly repo: Repository<AgentRequestRecord>) {}

  insert(record: AgentRequestRecord) {
    return this.repo.insert(row(record)).then(() => record);
  }
  findOwned(id: string, owner: Owner) {
    return this.repo.findOneBy({ id, organizationId: owner.organizationId, environment: owner.environment });
  }
}

export class SandboxSessionRepository {
  constructor(private readonly repo: Repository<SandboxSessionRecord>) {}

  insert(record: SandboxSessionRecord) {
    return this.repo.insert(record).then(() => record);
  }
  findById(id: string) {
    return this.repo.findOneBy({ id });
  }
  async delete(id: string) {
    await this.repo.delete({ id });
  }
  async deleteTenant(tenant: string, site: string) {
    await this.repo.delete({ tenant, site });
  }
}

export class SandboxDocRepository {
  constructor(private readonly repo: Repository<SandboxDocRecord>) {}

  insert(record: SandboxDocRecord) {
    return this.repo.insert(row(record)).then(() => record);
  }
  async insertMany(records: SandboxDocRecord[]) {
    for (let i = 0; i < records.length; i += 100) await this.repo.insert(records.slice(i, i + 100).map(row));
  }
  list(tenant: string, site: string, kind: string) {
    return this.repo.find({ where: { tenant, site, kind }, order: { createdAt: 'ASC', id: 'ASC' } });
  }
  find(tenant: string, site: string, id: string) {
    return this.repo.findOneBy({ tenant, site, id });
  }
  async update(tenant: string, site: string, id: string, data: Record<string, unknown>, now: Date) {
    await this.repo.update({ tenant, site, id }, row({ data, updatedAt: now }));
  }
  async delete(tenant: string, site: string, id: string) {
    await this.repo.delete({ tenant, site, id });
  }
  async deleteTenant(tenant: string, site: string) {
    await this.repo.delete({ tenant, site });
  }
}

export class SandboxTenantRepository {
  constructor(private readonly repo: Repository<SandboxTenantRecord>) {}

  /** Claims the seeding of a tenant's site; false when it is already seeded (or being seeded by another caller). */
  async claimSeed(tenant: string, site: string, now: Date): Promise<boolean> {
    try {
      await this.repo.insert({ tenant, site, seededAt: now });
      return true;
    } catch {
      return false;
    }
  }
  async delete(tenant: string, site: string) {
    await this.repo.delete({ tenant, site });
  }
}

export function buildRepositories(ds: DataSource) {
  return {
    organizations: new OrganizationRepository(ds.getRepository<OrganizationRecord>('Organization')),
    linkTokens: new LinkTokenRepository(ds.getRepository<LinkTokenRecord>('LinkToken')),
    connections: new ConnectionRepository(ds.getRepository<ConnectionRecord>('Connection')),
    publicTokens: new PublicTokenRepository(ds.getRepository<PublicTokenRecord>('PublicToken')),
    accessTokens: new AccessTokenRepository(ds.getRepository<AccessTokenRecord>('AccessToken')),
    agentRequests: new AgentRequestRepository(ds.getRepository<AgentRequestRecord>('AgentRequest')),
    sandboxSessions: new SandboxSessionRepository(ds.getRepository<SandboxSessionRecord>('SandboxSession')),
    sandboxDocs: new SandboxDocRepository(ds.getRepository<SandboxDocRecord>('SandboxDoc')),
    sandboxTenants: new SandboxTenantRepository(ds.getRepository<SandboxTenantRecord>('SandboxTenant')),
  };
}
