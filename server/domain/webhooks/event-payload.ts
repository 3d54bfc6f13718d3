import type { WebhookEventRecord } from '../../store';
import type { Vault } from '../../vault/vault';

/**
 * Event bodies that carry a secret (LINK.SESSION_FINISHED holds a public token) are stored sealed with the vault, so
 * the database keeps no token in plain text, as it keeps none elsewhere (tokens are stored as hashes). The dispatcher
 * opens the body just before it signs and sends it. A plain body (every other event) passes through unchanged.
 *
 * Like idempotency responses, and unlike connection sessions, these are not part of `vault reseal`: what they protect
 * is short-lived (a public token is exchangeable for 30 minutes). A body whose key was dropped fails its delivery for
 * good, with a reason in the delivery log.
 */
export const eventPayloadAad = (eventId: string) => `webhook-event:${eventId}:payload`;

export class EventPayloadSeal {
  constructor(private readonly vault: Vault) {}

  seal(eventId: string, body: string): string {
    return this.vault.seal(body, eventPayloadAad(eventId));
  }

  isSealed(payload: string): boolean {
    return this.vault.keyIdOf(payload) !== null;
  }

  /** The raw body to sign and send; throws VaultError when a sealed body cannot be opened. */
  open(event: Pick<WebhookEventRecord, 'id' | 'payload'>): string {
    return this.isSealed(event.payload) ? this.vault.open(event.payload, eventPayloadAad(event.id)) : event.payload;
  }
}
