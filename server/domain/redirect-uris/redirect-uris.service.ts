import { createHash } from 'node:crypto';

import { REDIRECT_URI_LIMITS } from '../../../contract/redirect-uri-schemas';
import type { Owner, RedirectUriRecord, Store } from '../../store';
import type { Clock } from '../clock';
import type { Caller } from '../context';
import { fail, ok, type Result } from '../errors';
import { newId } from '../ids';
import { checkRedirectUri } from './redirect-uri.policy';

const uriHash = (uri: string) => createHash('sha256').update(uri, 'utf8').digest('hex');

/** The redirect URIs an organization allows per environment (the API's /api/redirect-uris and the dashboard page). */
export class RedirectUriService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  list(caller: Caller): Promise<RedirectUriRecord[]> {
    return this.store.repos.redirectUris.listOwned(caller);
  }

  async create(caller: Caller, uri: string): Promise<Result<RedirectUriRecord>> {
    const verdict = checkRedirectUri(uri, caller.environment);
    if (!verdict.ok) return fail('REDIRECT_URI_INVALID', `uri ${verdict.reason}.`, { field: 'uri', rule: verdict.rule });
    const repo = this.store.repos.redirectUris;
    const hash = uriHash(uri);
    const taken = () => repo.findOwnedByUri(uri, hash, caller);
    const already = (existing: RedirectUriRecord) =>
      fail<RedirectUriRecord>('REDIRECT_URI_ALREADY_REGISTERED', `${uri} is already registered (${existing.id}).`, {
        field: 'uri',
        redirectUriId: existing.id,
      });
    const existing = await taken();
    if (existing) return already(existing);
    if ((await repo.countOwned(caller)) >= REDIRECT_URI_LIMITS.perEnvironmentMax) {
      return fail(
        'REDIRECT_URI_LIMIT',
        `At most ${REDIRECT_URI_LIMITS.perEnvironmentMax} redirect URIs per organization and environment; delete one first.`,
      );
    }
    const record: RedirectUriRecord = {
      id: newId('ruri'),
      organizationId: caller.organizationId,
      environment: caller.environment,
      uri,
      uriHash: hash,
      createdAt: this.clock.now(),
    };
    try {
      return ok(await repo.insert(record));
    } catch (err) {
      // Two registrations of one URI racing: the unique index lets one in; the other answers as if it came second.
      const winner = await taken();
      if (winner) return already(winner);
      throw err;
    }
  }

  async delete(caller: Caller, redirectUriId: string): Promise<Result<RedirectUriRecord>> {
    const repo = this.store.repos.redirectUris;
    const found = await repo.findOwned(redirectUriId, caller);
    if (!found || !(await repo.delete(redirectUriId, caller))) {
      return fail('REDIRECT_URI_NOT_FOUND', `No redirect URI ${redirectUriId}.`);
    }
    return ok(found);
  }

  /** Whether this exact URI is registered for the owner now (link-token creation, and again when the flow ends). */
  async isRegistered(owner: Owner, uri: string): Promise<boolean> {
    return (await this.store.repos.redirectUris.findOwnedByUri(uri, uriHash(uri), owner)) !== null;
  }
}
