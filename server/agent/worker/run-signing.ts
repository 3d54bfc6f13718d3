import type { Environment } from '../../config';
import type { RequestSigner } from '../../egress/request-signing';
import type { ProviderDefinition } from '../../providers/catalogue';

/** Who signs a context's requests (Web Bot Auth): null unless the organization and the provider both opted in. */
export interface RunSigning {
  signerFor(
    owner: { organizationId: string; environment: Environment },
    provider: Pick<ProviderDefinition, 'signedAgent' | 'source'>,
  ): Promise<RequestSigner | null>;
}
