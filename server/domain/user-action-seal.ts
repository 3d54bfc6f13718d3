import type { UserAction } from '../../contract/schemas';
import type { AgentRequestRecord } from '../store';
import type { Vault } from '../vault/vault';

/**
 * What a NEEDS_USER run waits for is stored sealed with the vault: it holds a live link token, and the database keeps
 * no token in plain text. Bound to its request (associated data), so a sealed action cannot be moved to another row.
 * Like webhook bodies, not part of `vault reseal`: it lives minutes. One that cannot be opened shows as none.
 */
const aad = (requestId: string) => `agent-request:${requestId}:user-action`;

export class UserActionSeal {
  constructor(private readonly vault: Vault) {}

  seal(requestId: string, action: UserAction): string {
    return this.vault.seal(JSON.stringify(action), aad(requestId));
  }

  open(record: Pick<AgentRequestRecord, 'id' | 'status' | 'sealedUserAction'>): UserAction | null {
    if (record.status !== 'NEEDS_USER' || !record.sealedUserAction) return null;
    try {
      return JSON.parse(this.vault.open(record.sealedUserAction, aad(record.id))) as UserAction;
    } catch {
      return null;
    }
  }
}
