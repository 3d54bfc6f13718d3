import { sign } from 'node:crypto';

import express, { type Router } from 'express';
import { directoryResponseHeaders, MediaType, type Signer } from 'web-bot-auth';

import { SIGNATURE_DIRECTORY_PATH } from '../domain/signed-agent';
import type { AgentKey } from '../vault/agent-keys';

/** How long verifiers may keep the directory (and how long its signature is valid): short, so a rotation reaches them soon. */
const DIRECTORY_MAX_AGE_S = 300;

const signerOf = (key: AgentKey): Signer => ({
  alg: 'ed25519',
  keyid: key.keyid,
  sign: (data: string) => new Uint8Array(sign(null, Buffer.from(data, 'utf8'), key.privateKey)),
});

/**
 * The directory's address at the public URL, never the Host a request names: the signature covers its authority, so a
 * signature made over any Host asked for would let another site present our keys, signed, as its own (security review).
 */
function directoryUrl(publicUrl: string): string {
  return new URL(SIGNATURE_DIRECTORY_PATH, publicUrl).toString();
}

/**
 * GET /.well-known/http-message-signatures-directory: the public keys sites verify this deployment's signed agent
 * requests with (Web Bot Auth), as draft-meunier-http-message-signatures-directory has it: a JWK Set of Ed25519 keys,
 * its own media type, and the response signed with each key it lists (`tag="http-message-signatures-directory"`),
 * which proves the publisher holds them. Public and outside the API contract, as /healthz is: a protocol's endpoint,
 * not an operation of the API. Only public halves: `x`, never `d`.
 */
export function signatureDirectoryRoutes(deps: { keys: () => Promise<AgentKey[]>; publicUrl: string }): Router {
  const router = express.Router();
  router.get(SIGNATURE_DIRECTORY_PATH, (req, res, next) => {
    void (async () => {
      const keys = await deps.keys();
      const body = JSON.stringify({ keys: keys.map((k) => ({ ...k.publicJwk, kid: k.keyid })) });
      const headers = { 'content-type': MediaType.HTTP_MESSAGE_SIGNATURES_DIRECTORY };
      const created = new Date();
      const signature = await directoryResponseHeaders(
        { request: { method: 'GET', url: directoryUrl(deps.publicUrl), headers: {} }, response: { status: 200, headers } },
        keys.map(signerOf),
        { created, expires: new Date(created.getTime() + DIRECTORY_MAX_AGE_S * 1000) },
      );
      res.setHeader('Content-Type', MediaType.HTTP_MESSAGE_SIGNATURES_DIRECTORY);
      res.setHeader('Cache-Control', `public, max-age=${DIRECTORY_MAX_AGE_S}`);
      res.setHeader('Signature', signature.Signature);
      res.setHeader('Signature-Input', signature['Signature-Input']);
      res.end(body);
    })().catch(next);
  });
  return router;
}
