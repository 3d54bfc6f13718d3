import { type RequestSigner, webBotAuthSigner } from '../egress/request-signing';
import type { ProviderDefinition } from '../providers/provider';
import type { Owner } from '../store';
import type { AgentKey } from '../vault/agent-keys';

/** Where a deployment publishes its Web Bot Auth keys (draft-meunier-http-message-signatures-directory). */
export const SIGNATURE_DIRECTORY_PATH = '/.well-known/http-message-signatures-directory';

/** The directory's address for a deployment reached at `publicUrl`: at its origin's root, where verifiers look. */
export function signatureDirectoryUrl(publicUrl: string): string {
  return new URL(SIGNATURE_DIRECTORY_PATH, new URL(publicUrl).origin).toString();
}

/**
 * Who signs a run's or a check's requests (Web Bot Auth): the deployment's current key, only where the organization
 * (its connection settings, per environment) and the provider (its declaration) both opted in. Both, because either
 * side may have a reason against it: a signature tells the site the visit is automated.
 */
export class SignedAgent {
  /** The signer of the current key (a key replacement makes a new one: AgentSigningKeys.replace). */
  private signer: { keyid: string; signer: RequestSigner } | null = null;

  constructor(
    private readonly settings: { signsRequests(owner: Owner): Promise<boolean> },
    private readonly keys: () => Promise<AgentKey[]>,
    private readonly publicUrl: string,
  ) {}

  async signerFor(owner: Owner, provider: Pick<ProviderDefinition, 'signedAgent' | 'source'>): Promise<RequestSigner | null> {
    // Never for an organization's own provider: the deployment's one key would vouch for a site only it chose.
    if (provider.signedAgent !== true || provider.source === 'organization') return null;
    if (!(await this.settings.signsRequests(owner))) return null;
    // The current key (keys() keeps it a minute at most, so a replaced key signs in every process soon after).
    const [current] = await this.keys();
    if (this.signer?.keyid !== current.keyid) this.signer = { keyid: current.keyid, signer: webBotAuthSigner(current, this.publicUrl) };
    return this.signer.signer;
  }
}
