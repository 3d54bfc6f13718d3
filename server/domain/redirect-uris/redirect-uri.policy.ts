import { COMPLETION_REDIRECT_PARAMS, REDIRECT_URI_LIMITS, type RedirectUriRule } from '../../../contract/redirect-uri-schemas';
import type { Environment } from '../../config';
import { isLoopbackHost } from '../webhooks/webhook-url.policy';

/**
 * Which URIs a hosted link may redirect the browser to when it ends. The browser, not this server, follows the
 * redirect, so the risk is not SSRF but handing a public token to the wrong place: the URI must be https (a token in
 * a plain-http URL crosses the network readable), and is matched exactly at link-token creation. http is accepted
 * only for loopback hosts (a developer's machine) and only in the sandbox, whose tokens reach only simulated sites.
 */
export type RedirectUriVerdict = { ok: true; url: URL } | { ok: false; rule: RedirectUriRule; reason: string };

const RESERVED = Object.values(COMPLETION_REDIRECT_PARAMS) as string[];
// Spaces and controls: WHATWG URL parsing silently drops tabs and newlines, so what was registered would not be what
// the browser opens.
const BAD_CHARACTERS = /[\s\p{Cc}]/u;

export function checkRedirectUri(raw: string, environment: Environment): RedirectUriVerdict {
  const refuse = (rule: RedirectUriRule, reason: string): RedirectUriVerdict => ({ ok: false, rule, reason });
  if (raw.length > REDIRECT_URI_LIMITS.uriMax) return refuse('TOO_LONG', `must be at most ${REDIRECT_URI_LIMITS.uriMax} characters`);
  if (BAD_CHARACTERS.test(raw)) return refuse('INVALID_CHARACTERS', 'must not contain spaces or control characters');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('NOT_AN_ABSOLUTE_URL', 'must be an absolute URL such as https://app.example.com/agentlink/done');
  }
  // The fragment never reaches the server that receives the redirect, and ours would be appended after it.
  if (raw.includes('#')) return refuse('FRAGMENT_NOT_ALLOWED', 'must not have a fragment (#…)');
  if (url.username || url.password) return refuse('CREDENTIALS_NOT_ALLOWED', 'must not carry a user name or password');
  const httpAllowed = environment === 'sandbox' && url.protocol === 'http:' && isLoopbackHost(url.hostname);
  if (url.protocol !== 'https:' && !httpAllowed) {
    return refuse(
      'HTTPS_REQUIRED',
      environment === 'sandbox'
        ? 'must use https (plain http only for loopback hosts: localhost, 127.0.0.1, [::1])'
        : 'must use https (production redirect URIs never use plain http)',
    );
  }
  const reserved = RESERVED.find((name) => url.searchParams.has(name));
  if (reserved) return refuse('RESERVED_QUERY_PARAMETER', `must not carry the query parameter ${reserved} (AgentLink adds it)`);
  return { ok: true, url };
}
