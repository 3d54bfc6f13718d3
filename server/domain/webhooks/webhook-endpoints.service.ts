import type { WebhookEventType } from '../../../contract/webhook-schemas';
import { WEBHOOK_LIMITS } from '../../../contract/webhook-schemas';
import type { AppConfig } from '../../config';
import type { Resolver } from '../../egress/resolve';
import type { KeysetPosition, Store, WebhookDeliveryRecord, WebhookEndpointRecord, WebhookEventRecord } from '../../store';
import { decodeKeysetCursor, encodeKeysetCursor } from '../../store/keyset-cursor';
import { resealAll, type ResealReport, type SealedPages, sealedValuesByKey } from '../../vault/reseal';
import type { Vault } from '../../vault/vault';
import type { Clock } from '../clock';
import type { Caller } from '../context';
import { fail, ok, type Result } from '../errors';
import { newId } from '../ids';
import { newDelivery } from './events.service';
import { generateWebhookSecret, webhookSecretAad } from './signature';
import { checkWebhookTarget } from './webhook-url.policy';

export interface EndpointWithSecret {
  endpoint: WebhookEndpointRecord;
  /** The signing secret in clear: returned once, at creation and rotation. */
  secret: string;
}

export interface NewWebhookEndpoint {
  url: string;
  events: WebhookEventType[];
  description?: string;
}

export interface WebhookEndpointChanges {
  url?: string;
  events?: WebhookEventType[];
  description?: string | null;
  enabled?: boolean;
}

/** Webhook endpoints of one organization and environment, their signing secrets and their delivery log. */
export class WebhookEndpointService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly vault: Vault,
    private readonly config: Pick<AppConfig, 'nodeEnv'>,
    /** Nudges a local dispatcher when a delivery is queued (resend). */
    private readonly onQueued: () => void = () => undefined,
    /** Resolves endpoint hosts at registration (default: the system's resolver); injectable for tests. */
    private readonly resolver?: Resolver,
  ) {}

  async create(caller: Caller, input: NewWebhookEndpoint): Promise<Result<EndpointWithSecret>> {
    const verdict = await checkWebhookTarget(input.url, caller.environment, this.config.nodeEnv, this.resolver);
    if (!verdict.ok) return fail('WEBHOOK_URL_NOT_ALLOWED', verdict.reason);
    if ((await this.store.repos.webhookEndpoints.countOwned(caller)) >= WEBHOOK_LIMITS.endpointsMax) {
      return fail(
        'WEBHOOK_ENDPOINT_LIMIT',
        `At most ${WEBHOOK_LIMITS.endpointsMax} webhook endpoints per organization and environment; delete one first.`,
      );
    }
    const now = this.clock.now();
    const id = newId('whk');
    const secret = generateWebhookSecret();
    const endpoint: WebhookEndpointRecord = {
      id,
      organizationId: caller.organizationId,
      environment: caller.environment,
      url: verdict.url.toString(),
      description: input.description ?? null,
      events: [...input.events],
      enabled: true,
      sealedSecret: this.vault.seal(secret, webhookSecretAad(id)),
      createdAt: now,
      updatedAt: now,
    };
    await this.store.repos.webhookEndpoints.insert(endpoint);
    return ok({ endpoint, secret });
  }

  list(caller: Caller): Promise<WebhookEndpointRecord[]> {
    return this.store.repos.webhookEndpoints.listOwned(caller);
  }

  async get(caller: Caller, webhookId: string): Promise<Result<WebhookEndpointRecord>> {
    const endpoint = await this.store.repos.webhookEndpoints.findOwned(webhookId, caller);
    return endpoint ? ok(endpoint) : fail('WEBHOOK_ENDPOINT_NOT_FOUND', `No webhook endpoint ${webhookId}.`);
  }

  async update(caller: Caller, webhookId: string, changes: WebhookEndpointChanges): Promise<Result<WebhookEndpointRecord>> {
    const repo = this.store.repos.webhookEndpoints;
    const existing = await repo.findOwned(webhookId, caller);
    if (!existing) return fail('WEBHOOK_ENDPOINT_NOT_FOUND', `No webhook endpoint ${webhookId}.`);
    let url: string | undefined;
    if (changes.url !== undefined) {
      const verdict = await checkWebhookTarget(changes.url, caller.environment, this.config.nodeEnv, this.resolver);
      if (!verdict.ok) return fail('WEBHOOK_URL_NOT_ALLOWED', verdict.reason);
      url = verdict.url.toString();
    }
    const updated = await repo.update(webhookId, caller, {
      ...(url === undefined ? {} : { url }),
      ...(changes.events === undefined ? {} : { events: [...changes.events] }),
      ...(changes.description === undefined ? {} : { description: changes.description }),
      ...(changes.enabled === undefined ? {} : { enabled: changes.enabled }),
      updatedAt: this.clock.now(),
    });
    if (!updated) return fail('WEBHOOK_ENDPOINT_NOT_FOUND', `No webhook endpoint ${webhookId}.`);
    return ok((await repo.findOwned(webhookId, caller))!);
  }

  /** Deletes the endpoint and its deliveries (pending ones are dropped). */
  async delete(caller: Caller, webhookId: string): Promise<Result<WebhookEndpointRecord>> {
    const repos = this.store.repos;
    const endpoint = await repos.webhookEndpoints.findOwned(webhookId, caller);
    if (!endpoint || !(await repos.webhookEndpoints.delete(webhookId, caller))) {
      return fail('WEBHOOK_ENDPOINT_NOT_FOUND', `No webhook endpoint ${webhookId}.`);
    }
    await repos.webhookDeliveries.deleteForEndpoint(webhookId);
    return ok(endpoint);
  }

  /** A new signing secret, effective at once for every later attempt. */
  async rotateSecret(caller: Caller, webhookId: string): Promise<Result<EndpointWithSecret>> {
    const repo = this.store.repos.webhookEndpoints;
    const secret = generateWebhookSecret();
    const done = await repo.update(webhookId, caller, {
      sealedSecret: this.vault.seal(secret, webhookSecretAad(webhookId)),
      updatedAt: this.clock.now(),
    });
    if (!done) return fail('WEBHOOK_ENDPOINT_NOT_FOUND', `No webhook endpoint ${webhookId}.`);
    return ok({ endpoint: (await repo.findOwned(webhookId, caller))!, secret });
  }

  /** The signing secret in clear (for the dispatcher, which signs with it). */
  openSecret(endpoint: WebhookEndpointRecord): string {
    return this.vault.open(endpoint.sealedSecret, webhookSecretAad(endpoint.id));
  }

  /** Re-seals every endpoint's signing secret with the vault's primary key (after a key rotation; `vault reseal`). */
  resealAll(opts: { batchSize?: number } = {}): Promise<ResealReport> {
    return resealAll(this.vault, this.sealedPages(), opts.batchSize);
  }

  /** How many sealed signing secrets each key id protects (for `vault status`). */
  sealedValuesByKey(): Promise<Record<string, number>> {
    return sealedValuesByKey(this.vault, this.sealedPages());
  }

  private sealedPages(): SealedPages {
    const repo = this.store.repos.webhookEndpoints;
    return async (after, limit) =>
      (await repo.listSealed(after, limit)).map(({ id, sealedSecret }) => ({
        id,
        values: [{ value: sealedSecret, aad: webhookSecretAad(id), replace: (next: string) => repo.replaceSealed(id, sealedSecret, next) }],
      }));
  }

  async listDeliveries(
    caller: Caller,
    webhookId: string,
    query: { limit?: number; cursor?: string },
  ): Promise<Result<{ records: WebhookDeliveryRecord[]; nextCursor: string | null }>> {
    const endpoint = await this.store.repos.webhookEndpoints.findOwned(webhookId, caller);
    if (!endpoint) return fail('WEBHOOK_ENDPOINT_NOT_FOUND', `No webhook endpoint ${webhookId}.`);
    let after: KeysetPosition | undefined;
    if (query.cursor) {
      const decoded = decodeKeysetCursor(query.cursor, 'whdl');
      if (!decoded) return fail('INVALID_CURSOR', 'cursor is not a cursor this API returned; pass nextCursor of the previous page.');
      after = decoded;
    }
    const page = await this.store.repos.webhookDeliveries.listForEndpoint(webhookId, {
      limit: query.limit ?? WEBHOOK_LIMITS.deliveryPageDefault,
      ...(after ? { after } : {}),
    });
    return ok({ records: page.records, nextCursor: page.next ? encodeKeysetCursor(page.next) : null });
  }

  /** One delivery of an endpoint the caller owns, with the event it carries (the exact body that was signed and sent). */
  async getDelivery(
    caller: Caller,
    webhookId: string,
    deliveryId: string,
  ): Promise<Result<{ delivery: WebhookDeliveryRecord; event: WebhookEventRecord }>> {
    const delivery = await this.store.repos.webhookDeliveries.findOwned(deliveryId, caller);
    const event = delivery?.endpointId === webhookId ? await this.store.repos.webhookEvents.findById(delivery.eventId) : null;
    if (!delivery || !event) return fail('WEBHOOK_DELIVERY_NOT_FOUND', `No webhook delivery ${deliveryId}.`);
    return ok({ delivery, event });
  }

  /** Queues a new delivery of the same event to the same endpoint, due now, with the whole retry schedule. */
  async resend(caller: Caller, deliveryId: string): Promise<Result<WebhookDeliveryRecord>> {
    const repos = this.store.repos;
    const original = await repos.webhookDeliveries.findOwned(deliveryId, caller);
    const event = original ? await repos.webhookEvents.findById(original.eventId) : null;
    const endpoint = original ? await repos.webhookEndpoints.findOwned(original.endpointId, caller) : null;
    if (!original || !event || !endpoint) return fail('WEBHOOK_DELIVERY_NOT_FOUND', `No webhook delivery ${deliveryId}.`);
    const [delivery] = await repos.webhookDeliveries.insertMany([newDelivery(endpoint.id, event, this.clock.now())]);
    this.onQueued();
    return ok(delivery);
  }
}
