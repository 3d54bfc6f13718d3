import { defineProvider } from '../../providers/declaration';
import { type ProviderDefinition, sandboxOrigin, type SandboxOrigins } from '../../providers/provider';
import { sandboxLoginRecipe, sandboxLoginStartUrl, sandboxSignedIn } from '../sandbox-login.recipe';
import { QUILL_LOGO, QUILL_SLUG } from './site/site';

export const QUILL_PROVIDER_ID = '3a9d7c21-5e4b-4f60-8d1a-2b7e9c4f0a35';

/**
 * Quill: the sandbox's notes site with passkeys. Its password form is the kit's (the same recipe renews a password);
 * its passkey control is named for silent renewal with the connection's passkey (passkeySignIn).
 */
export function quillProvider(o: SandboxOrigins): ProviderDefinition {
  const { origin, host } = sandboxOrigin(QUILL_SLUG, o);
  return defineProvider(
    {
      providerId: QUILL_PROVIDER_ID,
      name: 'Quill (sandbox notes with passkeys)',
      slug: QUILL_SLUG,
      category: 'productivity',
      environment: 'sandbox',
      homeUrl: `${origin}/`,
      loginUrl: `${origin}/login`,
      allowedOrigins: [host],
      login: sandboxLoginRecipe(QUILL_SLUG),
      passkeySignIn: { role: 'button', name: 'Sign in with a passkey' },
      signedIn: sandboxSignedIn(QUILL_SLUG),
      logo: QUILL_LOGO,
    },
    { loginStartUrl: sandboxLoginStartUrl(QUILL_SLUG, o) },
  );
}
