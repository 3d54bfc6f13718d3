import { randomUUID } from 'node:crypto';

import type { ProviderDeclaration } from '../../contract/provider-declaration';
import { ProviderDeclarationSchema } from '../../contract/provider-declaration';
import { identityProviderIssues } from '../egress/identity-provider-check';
import type { PrivateProviders, ProviderDefinition, ProviderScope } from '../providers/catalogue';
import { checkProviderDeclaration, compileDeclaration, type DeclarationIssue } from '../providers/declaration';
import type { OrganizationProviderRecord, Store } from '../store';
import type { Clock } from './clock';
import type { Caller } from './context';
import { fail, ok, type Result } from './errors';

/** At most this many private providers per organization and environment (a bound, like webhook endpoints). */
export const ORGANIZATION_PROVIDER_LIMIT = 50;

export interface ProviderView {
  provider: ProviderDefinition;
  /** The stored declaration, for an organization's own provider; null for shared ones. */
  declaration: Record<string, unknown> | null;
}

/**
 * An organization's private providers: declared through the API or the dashboard, visible only to that organization
 * and environment, and resolved by the catalogue like any shared one (link tokens, the widget, agent runs).
 */
export class OrganizationProviderService implements PrivateProviders {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** The shared providers (built-in and operator): their slugs are taken, and they cannot be changed here. */
    private readonly shared: readonly ProviderDefinition[],
  ) {}

  async list(scope: ProviderScope): Promise<ProviderDefinition[]> {
    const rows = await this.store.repos.organizationProviders.listOwned(scope);
    return rows.flatMap((r) => this.compile(r) ?? []);
  }

  async get(providerId: string, scope: ProviderScope): Promise<ProviderDefinition | undefined> {
    const row = await this.store.repos.organizationProviders.findOwned(providerId, scope);
    return row ? this.compile(row) : undefined;
  }

  /** Shared or own, with the declaration of an own one. */
  async view(caller: Caller, providerId: string): Promise<Result<ProviderView>> {
    const shared = this.sharedOf(providerId, caller);
    if (shared) return ok({ provider: shared, declaration: null });
    const row = await this.store.repos.organizationProviders.findOwned(providerId, caller);
    const provider = row && this.compile(row);
    return provider && row ? ok({ provider, declaration: row.declaration }) : this.notFound(providerId, caller);
  }

  async create(caller: Caller, body: unknown): Promise<Result<ProviderView>> {
    const input = body as Partial<ProviderDeclaration>;
    const issues: DeclarationIssue[] = [];
    if (input.providerId !== undefined) issues.push({ path: 'providerId', message: 'is assigned by the server; leave it out' });
    if (input.environment !== undefined && input.environment !== caller.environment) {
      issues.push({ path: 'environment', message: `must be ${caller.environment}, the environment of the credentials` });
    }
    if (issues.length) return invalid(issues);
    const checked = checkProviderDeclaration({ ...input, environment: caller.environment }, caller.environment);
    if (!checked.ok) return invalid(checked.issues);
    const { declaration } = checked;
    const blocked = operatorOnly(declaration) ?? blockedIdentityProviders(declaration, caller);
    if (blocked) return blocked;
    if ((await this.store.repos.organizationProviders.countOwned(caller)) >= ORGANIZATION_PROVIDER_LIMIT) {
      return fail(
        'PROVIDER_LIMIT',
        `At most ${ORGANIZATION_PROVIDER_LIMIT} private providers per organization and environment; delete one first.`,
      );
    }
    const taken = await this.slugTaken(declaration.slug, caller);
    if (taken) return taken;
    const now = this.clock.now();
    const record: OrganizationProviderRecord = {
      id: randomUUID(),
      organizationId: caller.organizationId,
      environment: caller.environment,
      slug: declaration.slug,
      declaration: stored(declaration),
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.store.repos.organizationProviders.insert(record);
    } catch (err) {
      // Two creations raced for one slug: the unique index let one win.
      if (await this.store.repos.organizationProviders.findOwnedBySlug(declaration.slug, caller))
        return this.slugTakenError(declaration.slug, caller);
      throw err;
    }
    return this.viewOf(record);
  }

  async update(caller: Caller, providerId: string, patch: Partial<ProviderDeclaration>): Promise<Result<ProviderView>> {
    if (this.sharedOf(providerId, caller)) return this.notEditable(providerId, caller);
    const repo = this.store.repos.organizationProviders;
    const row = await repo.findOwned(providerId, caller);
    if (!row) return this.notFound(providerId, caller);
    const merged = { ...row.declaration, ...patch, environment: caller.environment };
    const checked = checkProviderDeclaration(merged, caller.environment);
    if (!checked.ok) return invalid(checked.issues);
    const blocked = operatorOnly(checked.declaration) ?? blockedIdentityProviders(checked.declaration, caller);
    if (blocked) return blocked;
    if (checked.declaration.slug !== row.slug) {
      const taken = await this.slugTaken(checked.declaration.slug, caller);
      if (taken) return taken;
    }
    const changes = { slug: checked.declaration.slug, declaration: stored(checked.declaration), updatedAt: this.clock.now() };
    try {
      if (!(await repo.update(providerId, caller, changes))) return this.notFound(providerId, caller);
    } catch (err) {
      if (await repo.findOwnedBySlug(checked.declaration.slug, caller)) return this.slugTakenError(checked.declaration.slug, caller);
      throw err;
    }
    return this.viewOf({ ...row, ...changes });
  }

  /**
   * Refused while connections that are not revoked use it (Stripe refuses deleting an in-use object the same way):
   * they hold sealed sessions, and their agent requests would lose the egress policy that fences them.
   */
  async delete(caller: Caller, providerId: string): Promise<Result<ProviderView>> {
    if (this.sharedOf(providerId, caller)) return this.notEditable(providerId, caller);
    const repo = this.store.repos.organizationProviders;
    const row = await repo.findOwned(providerId, caller);
    if (!row) return this.notFound(providerId, caller);
    const live = await this.store.repos.connections.countLiveForProvider(providerId, caller);
    if (live > 0) {
      return fail(
        'PROVIDER_IN_USE',
        `${row.slug} still has ${live} connection(s) that are not revoked; revoke them first (DELETE /api/connections/{connectionId}).`,
        { connections: live },
      );
    }
    if (!(await repo.delete(providerId, caller))) return this.notFound(providerId, caller);
    return this.viewOf(row);
  }

  private compile(row: OrganizationProviderRecord): ProviderDefinition | undefined {
    // Stored declarations were validated on write; one a later version's schema no longer reads is left out, not fatal.
    const parsed = ProviderDeclarationSchema.safeParse(row.declaration);
    if (!parsed.success) return undefined;
    return compileDeclaration(parsed.data, {
      providerId: row.id,
      environment: row.environment,
      source: 'organization',
      organizationId: row.organizationId,
    });
  }

  private viewOf(row: OrganizationProviderRecord): Result<ProviderView> {
    const provider = this.compile(row);
    if (!provider) throw new Error(`stored provider ${row.id} does not read back`);
    return ok({ provider, declaration: row.declaration });
  }

  private sharedOf(providerId: string, caller: Caller) {
    return this.shared.find((p) => p.providerId === providerId && p.environment === caller.environment);
  }

  private async slugTaken(slug: string, caller: Caller): Promise<Result<never> | null> {
    // A shared provider's slug is taken in both environments: playbooks are found by slug, and an organization's
    // provider must never be offered another site's playbooks.
    const shared = this.shared.some((p) => p.slug === slug);
    if (shared || (await this.store.repos.organizationProviders.findOwnedBySlug(slug, caller))) return this.slugTakenError(slug, caller);
    return null;
  }

  private slugTakenError(slug: string, caller: Caller): Result<never> {
    return fail(
      'PROVIDER_SLUG_TAKEN',
      `slug: ${slug} is already taken (by a built-in or operator provider, or one of yours in ${caller.environment}).`,
      [{ path: 'slug', message: 'is already taken' }],
    );
  }

  private notFound(providerId: string, caller: Caller): Result<never> {
    return fail('PROVIDER_NOT_FOUND', `No provider ${providerId} in the ${caller.environment} catalogue (GET /api/providers).`);
  }

  private notEditable(providerId: string, caller: Caller): Result<never> {
    const p = this.sharedOf(providerId, caller);
    const what = p?.source === 'operator' ? "declared by this server's operator" : 'built in';
    return fail(
      'PROVIDER_NOT_EDITABLE',
      `${p?.name ?? providerId} is ${what}: only your organization's own providers can be changed or deleted.`,
    );
  }
}

/**
 * Fields only the operator's declarations may set. signedAgent: the deployment's one Web Bot Auth key speaks for every
 * organization on it, so an organization could otherwise have it vouch for its traffic to any site it names (and get
 * that key blocked for everyone).
 */
function operatorOnly(declaration: ProviderDeclaration): Result<never> | null {
  if (declaration.signedAgent !== true) return null;
  return invalid([
    {
      path: 'signedAgent',
      message: "is set by this server's operator only (AGENTLINK_PROVIDERS_FILE): the signing key speaks for the whole server",
    },
  ]);
}

/** Identity providers the sign-in's egress policy would block (asked now, with the policy itself), as declaration issues. */
function blockedIdentityProviders(declaration: ProviderDeclaration, caller: Caller): Result<never> | null {
  const provider = compileDeclaration(declaration, { providerId: randomUUID(), environment: caller.environment, source: 'organization' });
  const issues = identityProviderIssues(provider, caller.environment).map((i) => ({
    path: `identityProviders[${i.index}]`,
    message: `${i.entry} would be blocked during sign-in: ${i.reason}`,
  }));
  return issues.length ? invalid(issues) : null;
}

function invalid(issues: DeclarationIssue[]): Result<never> {
  return fail('PROVIDER_DECLARATION_INVALID', `${issues[0].path}: ${issues[0].message}`, issues);
}

/** What is kept: the validated declaration without the fields the server settles (id, environment). */
function stored(d: ProviderDeclaration): Record<string, unknown> {
  const { providerId: _id, environment: _env, ...rest } = d;
  return rest;
}
