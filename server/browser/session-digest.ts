import { createHash } from 'node:crypto';

import type { ProviderSession } from './session-format';

/**
 * A digest of a provider session's whole content, to tell whether a run changed it: a run that ends with the session
 * it was loaded with need not seal and write it again. Equal digests mean equal JSON, so equal content; any change (a
 * cookie's value or expiry, one storage item, the order in which the browser lists them) gives another digest, and
 * the session is sealed as before. A false "changed" costs one write; a false "unchanged" cannot happen.
 */
export function sessionDigest(session: ProviderSession): string {
  return createHash('sha256').update(JSON.stringify(session)).digest('base64');
}
