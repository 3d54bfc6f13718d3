import type http from 'node:http';

import { helpers, jwkToKeyID, verify } from 'web-bot-auth';
import { verifierFromJWK } from 'web-bot-auth/crypto';

/**
 * What a site that checks Web Bot Auth does with each request, with Cloudflare's own verifier (`web-bot-auth`): read
 * Signature-Agent, fetch that agent's key directory over HTTP, find the key whose JWK thumbprint is the signature's
 * keyid, and verify the signature (covered components, tag, created/expires, Ed25519). Nothing of AgentLink's code.
 */
export type Verdict = { kind: 'unsigned' } | { kind: 'verified'; keyid: string; agent: string } | { kind: 'invalid'; reason: string };

export interface SignedRequestLike {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

/** The keys an agent's directory lists now (fetched each time: a rotation shows at once). */
export async function fetchDirectory(agent: string): Promise<{ contentType: string | null; keys: JsonWebKey[] }> {
  const res = await fetch(new URL('/.well-known/http-message-signatures-directory', agent), { signal: AbortSignal.timeout(5000) });
  const body = (await res.json()) as { keys: JsonWebKey[] };
  return { contentType: res.headers.get('content-type'), keys: body.keys };
}

export async function verifyAgentRequest(request: SignedRequestLike): Promise<Verdict> {
  const { headers } = request;
  if (!headers.signature && !headers['signature-input'] && !headers['signature-agent']) return { kind: 'unsigned' };
  const agentHeader = String(headers['signature-agent'] ?? '');
  const agent = /^"(https?:\/\/[^"]+)"$/.exec(agentHeader)?.[1];
  if (!agent) return { kind: 'invalid', reason: `Signature-Agent is not a quoted URL: ${agentHeader}` };
  try {
    const { keys } = await fetchDirectory(agent);
    let keyid = '';
    // Node's headers as the library reads a plain record (a repeated header is a list).
    const message = { method: request.method, url: request.url, headers: headers as Record<string, string | string[]> };
    await verify(message, async (data, signature, params) => {
      for (const jwk of keys) {
        if ((await jwkToKeyID(jwk, helpers.WEBCRYPTO_SHA256, helpers.BASE64URL_DECODE)) !== params.keyid) continue;
        await (
          await verifierFromJWK(jwk)
        )(data, signature, params);
        keyid = params.keyid;
        return;
      }
      throw new Error(`no key ${params.keyid} in the directory`);
    });
    // The agent must be a covered component: otherwise any signer could claim to be this one.
    if (!/"signature-agent"/.test(String(headers['signature-input']))) return { kind: 'invalid', reason: 'Signature-Agent not signed' };
    return { kind: 'verified', keyid, agent };
  } catch (err) {
    return { kind: 'invalid', reason: (err as Error).message };
  }
}

/** A Node request as the verifier reads it: its full URL from the Host it was sent to. */
export function requestLike(req: http.IncomingMessage, scheme: 'http' | 'https'): SignedRequestLike {
  return { method: req.method ?? 'GET', url: `${scheme}://${req.headers.host}${req.url}`, headers: req.headers };
}
