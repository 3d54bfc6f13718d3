import { type KeyObject, sign } from 'node:crypto';

import { SIGNATURE_AGENT_HEADER, signatureHeadersSync, type SignerSync } from 'web-bot-auth';

/**
 * Web Bot Auth (draft-meunier-web-bot-auth-architecture, on RFC 9421 HTTP Message Signatures): the egress proxy signs
 * each request it sends on for a context whose organization and provider opted in, so a site (or its CDN) can verify
 * that the request comes from this deployment's agent. The signature base and the header syntax are the `web-bot-auth`
 * library's (Cloudflare's, the draft authors'), never built here; the Ed25519 signature itself is node:crypto's.
 */
export interface RequestSigner {
  /** Sets Signature, Signature-Input and Signature-Agent on `headers` (lower-case names), replacing any already there. */
  sign(method: string, url: URL, headers: Record<string, string | string[]>): void;
}

/** The headers a signer owns: whatever a page set under these names is dropped, so a page can neither forge nor strip them. */
export const SIGNATURE_HEADERS = ['signature', 'signature-input', SIGNATURE_AGENT_HEADER] as const;

/** How long a signature is valid: short, as the draft recommends against replay; it is made as the request leaves. */
export const SIGNATURE_VALIDITY_MS = 60_000;

export interface SigningKey {
  keyid: string;
  privateKey: KeyObject;
}

/**
 * A signer with `key`, naming `agentUrl` (this deployment's public URL, whose origin serves the key directory) in
 * Signature-Agent. Signature-Agent is the draft's quoted string form, which `web-bot-auth` signs and verifies as a
 * covered component (`"@authority" "signature-agent"`), with a fresh nonce and `tag="web-bot-auth"`.
 */
export function webBotAuthSigner(key: SigningKey, agentUrl: string, now: () => number = Date.now): RequestSigner {
  const signer: SignerSync = {
    alg: 'ed25519',
    keyid: key.keyid,
    signSync: (data: string) => new Uint8Array(sign(null, Buffer.from(data, 'utf8'), key.privateKey)),
  };
  const agent = `"${new URL(agentUrl).origin}"`;
  return {
    sign(method, url, headers) {
      for (const name of SIGNATURE_HEADERS) delete headers[name];
      try {
        const created = new Date(now());
        const withAgent = { ...headers, [SIGNATURE_AGENT_HEADER]: agent };
        const signed = signatureHeadersSync({ method, url: url.toString(), headers: withAgent }, signer, {
          created,
          expires: new Date(created.getTime() + SIGNATURE_VALIDITY_MS),
        });
        headers[SIGNATURE_AGENT_HEADER] = agent;
        headers.signature = signed.Signature;
        headers['signature-input'] = signed['Signature-Input'];
      } catch {
        // Called inside the proxy's request handlers, where a throw would end the process: a request that cannot be
        // signed leaves unsigned (a declaration missing, nothing more), never with half the headers or the page's.
      }
    },
  };
}
