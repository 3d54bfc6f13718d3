import { passkeyAad } from '../../server/domain/connections.service';
import { createTestApp, type TestApp } from '../support/app';
import { connectSandbox, createOrg, del, get, sandboxHeaders } from '../support/helpers';

/**
 * A connection's passkey is held like a password: sealed with the connection (its id in the vault's associated data,
 * so no other connection's row can open it), shown only by its public face, gone with a revoke.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp('sqlite');
});
afterAll(async () => t?.close());

const credential = {
  credentialId: Buffer.from('credential-raw-id').toString('base64'),
  isResidentCredential: true,
  rpId: 'quill.sandbox.localhost',
  privateKey: Buffer.alloc(138, 5).toString('base64'),
  userHandle: Buffer.from('user').toString('base64'),
  signCount: 1,
};

it('seals the passkey with its connection, shows its face only, and forgets it on revoke', async () => {
  const org = await createOrg(t);
  const mine = await connectSandbox(t, org, { clientUserId: 'pia' });
  const other = await connectSandbox(t, org, { clientUserId: 'pia' });
  expect(await t.services.connectionPasskeys.keep(mine.connectionId, credential)).toBe(true);

  const res = await get(t, `/api/connections/${mine.connectionId}`, sandboxHeaders(org));
  expect(res.body.passkey).toEqual({
    credentialId: Buffer.from('credential-raw-id').toString('base64url'),
    rpId: 'quill.sandbox.localhost',
    createdAt: t.clock.now().toISOString(),
    lastUsedAt: null,
  });
  // Attack: read the key from the API, or from the row on disk.
  expect(JSON.stringify(res.body)).not.toContain(credential.privateKey);
  const row = (await t.services.store.repos.connections.findById(mine.connectionId))!;
  expect(row.sealedPasskey).not.toContain(credential.privateKey);
  expect(t.services.connectionPasskeys.open(row)).toMatchObject({ privateKey: credential.privateKey, rpId: credential.rpId });
  // Attack: the sealed value copied onto another connection (the same account's) does not open there.
  expect(() => t.services.connectionPasskeys.open({ id: other.connectionId, sealedPasskey: row.sealedPasskey })).toThrow();
  expect(() => t.services.vault.open(row.sealedPasskey!, passkeyAad(other.connectionId))).toThrow();
  expect((await get(t, `/api/connections/${other.connectionId}`, sandboxHeaders(org))).body.passkey).toBeNull();

  expect((await del(t, `/api/connections/${mine.connectionId}`, sandboxHeaders(org))).status).toBe(200);
  const revoked = (await t.services.store.repos.connections.findById(mine.connectionId))!;
  expect(revoked.sealedPasskey).toBeNull();
  expect((await get(t, `/api/connections/${mine.connectionId}`, sandboxHeaders(org))).body.passkey).toBeNull();
  // A passkey arriving after the revoke is not kept.
  expect(await t.services.connectionPasskeys.keep(mine.connectionId, credential)).toBe(false);
});

it('keeps the largest sign count when two sign-ins of one connection write at once, and never lowers it', async () => {
  const org = await createOrg(t);
  const { connectionId } = await connectSandbox(t, org, { clientUserId: 'ren' });
  expect(await t.services.connectionPasskeys.keep(connectionId, credential)).toBe(true);
  const passkeys = t.services.connectionPasskeys;
  const read = async () => (await t.services.store.repos.connections.findById(connectionId))!;
  const countNow = async () => passkeys.open(await read())!.signCount;
  // A check and a run both read the row before either signed in; the run's count (9) lands first, the check's (5) after.
  const seenByBoth = await read();
  await passkeys.used(seenByBoth, { ...credential, signCount: 9 });
  await passkeys.used(seenByBoth, { ...credential, signCount: 5 });
  expect(await countNow()).toBe(9);
  // The other order: the lower one first, then the higher one from the stale row still lands (compare-and-set retried).
  const stale = await read();
  await passkeys.used(stale, { ...credential, signCount: 10 });
  await passkeys.used(stale, { ...credential, signCount: 12 });
  expect(await countNow()).toBe(12);
  expect((await read()).passkey?.lastUsedAt).toBe(t.clock.now().toISOString());
});
