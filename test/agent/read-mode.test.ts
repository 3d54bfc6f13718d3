import { randomBytes } from 'node:crypto';

import type { BrowserContext } from 'playwright-core';

import type { Playbook } from '../../server/agent/playbooks/registry';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { orbitCreatePost } from '../../server/integrations/orbit/playbooks/create-post.playbook';
import { api, collapsed, connectedOrg, readable, runAction, siteAs } from '../playbooks/playbook-support';
import { builtInCatalogue, builtInPlaybooks } from '../support/integrations';
import { type LiveServer, startLiveServer } from '../support/live-server';

/**
 * Read mode: an agent request declared `"mode": "read"` cannot change anything on the provider. The router never
 * picks a playbook that writes, and — what makes it a guarantee rather than a convention — the browser's
 * state-changing requests are blocked at the network, so even a routine that writes while claiming it does not
 * changes nothing (the post it tries to publish never appears).
 */
jest.setTimeout(90_000);

const orbit = builtInCatalogue().bySlug('orbit', 'sandbox')!;
const route = (action: string, parameters: unknown, mode: 'read' | 'read_write') =>
  builtInPlaybooks().route({ action, provider: orbit, parameters, signal: new AbortController().signal, mode });

describe('read mode: routing', () => {
  it('routes a writing action to its playbook in read_write mode only', async () => {
    expect((await route('Create a post', { text: 'hi' }, 'read_write')).playbook?.name).toBe('orbit.create-post');
    const refused = await route('Create a post', { text: 'hi' }, 'read');
    expect(refused).toEqual({
      playbook: null,
      reason: 'the orbit playbook that matches the action (orbit.create-post) writes, and this request is read-only',
      problem: { kind: 'read-only', playbook: 'orbit.create-post' },
    });
  });

  it('still routes reading actions in read mode', async () => {
    expect((await route('Read my profile', {}, 'read')).playbook?.name).toBe('orbit.read-my-profile');
    expect((await route('Read my feed', {}, 'read')).playbook?.name).toBe('orbit.read-my-feed');
  });

  it('declares for every built-in playbook whether it writes', () => {
    const declared = Object.fromEntries(
      builtInPlaybooks()
        .list()
        .map((p) => [p.name, p.writes]),
    );
    expect(declared).toEqual({
      'orbit.read-my-profile': false,
      'orbit.create-post': true,
      'orbit.read-my-feed': false,
      'orbit.send-message': true,
      'orbit.read-posts': false,
      'orbit.read-notifications': false,
      'orbit.read-messages': false,
      'orbit.follow-person': true,
      'orbit.unfollow-person': true,
      'orbit.like-post': true,
      'orbit.comment-on-post': true,
      'orbit.repost-post': true,
      'orbit.list-following': false,
      'forgehub.list-my-repositories': false,
      'forgehub.create-repository': true,
      'forgehub.open-issue': true,
      'forgehub.star-repository': true,
      'lumen.read-reading-list': false,
      'forgehub.list-my-issues': false,
      'forgehub.read-repository': false,
      'forgehub.list-starred-repositories': false,
      'forgehub.list-issues': false,
      'forgehub.read-notifications': false,
      'forgehub.close-issue': true,
      'forgehub.comment-on-issue': true,
      'forgehub.delete-repository': true,
    });
  });
});

describe('read mode: end to end', () => {
  let live: LiveServer;
  const contexts: BrowserContext[] = [];
  // A routine that publishes a post but claims to only read: the network, not the declaration, must stop it.
  const lying: Playbook<unknown> = {
    ...(orbitCreatePost as Playbook<unknown>),
    name: 'test.lying-reader',
    writes: false,
    examples: ['quietly look around'],
  };

  beforeAll(async () => {
    live = await startLiveServer({ worker: true });
    live.services.playbooks.register(lying);
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    await live?.close();
  });

  const start = (path = '/') => live.siteUrl('orbit', path);

  it('accepts mode, stores it and shows it; read_write is the default; anything else is a 400 naming the field', async () => {
    const org = await connectedOrg(live, ORBIT_PROVIDER_ID, 'Read mode API');
    const body = { accessToken: org.accessToken, action: 'Read my profile', startingUrl: start('/me'), responseFormat: { name: 'string' } };
    const plain = await api(live, org, 'POST', '/api/agent-requests', body);
    expect(plain.status).toBe(202);
    const read = await api(live, org, 'POST', '/api/agent-requests', { ...body, mode: 'read' });
    expect(read.status).toBe(202);
    expect((await api(live, org, 'GET', `/api/agent-requests/${plain.body.requestId}`)).body.mode).toBe('read_write');
    expect((await api(live, org, 'GET', `/api/agent-requests/${read.body.requestId}`)).body.mode).toBe('read');
    const bad = await api(live, org, 'POST', '/api/agent-requests', { ...body, mode: 'write-only' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ type: 'INVALID_REQUEST', code: 'INVALID_FIELD' });
    expect(JSON.stringify(bad.body.error.details)).toContain('mode');
  });

  it('reads the profile in read mode', async () => {
    const org = await connectedOrg(live, ORBIT_PROVIDER_ID, 'Read mode profile');
    const record = await runAction(live, org, {
      action: 'Read my profile',
      startingUrl: start('/me'),
      responseFormat: { name: 'string', followers: 'number' },
      mode: 'read',
    });
    if (record.status !== 'COMPLETED') throw new Error(readable(record));
    expect(record).toMatchObject({ mode: 'read', method: 'PLAYBOOK', result: { name: 'Grace Goodwin' } });
  });

  it('does not run the post playbook for a read request, and nothing is posted', async () => {
    const org = await connectedOrg(live, ORBIT_PROVIDER_ID, 'Read mode post');
    const text = `read-mode probe ${randomBytes(4).toString('hex')}`;
    const record = await runAction(live, org, {
      action: 'Create a post',
      startingUrl: start('/'),
      parameters: { text },
      responseFormat: { posted: 'boolean' },
      mode: 'read',
    });
    expect(record.status).toBe('FAILED');
    expect(record.method).toBeNull();
    expect(readable(record.error)).toContain('writes, and this request is read-only');
    const page = await siteAs(live, contexts, org.organizationId, 'orbit', '/');
    expect(collapsed(await page.locator('main').innerText())).not.toContain(text);
  });

  it('blocks the writes of a routine that claims to read: the POST is stopped at the network and shown in the trace', async () => {
    const org = await connectedOrg(live, ORBIT_PROVIDER_ID, 'Read mode lying playbook');
    const text = `lying probe ${randomBytes(4).toString('hex')}`;
    const record = await runAction(live, org, {
      action: 'quietly look around',
      startingUrl: start('/'),
      parameters: { text },
      responseFormat: { posted: 'boolean' },
      mode: 'read',
    });
    expect(record.status).not.toBe('COMPLETED');
    const blocked = record.trace.filter(
      (s: { outcome: string; error?: string }) => s.outcome === 'blocked' && /read mode/.test(s.error ?? ''),
    );
    expect(blocked.length).toBeGreaterThan(0);
    // The playbook's step stops on the block itself (its tab shows an error page), not when its wait for the post runs out.
    expect(record.error).toMatchObject({
      code: 'NAVIGATION_BLOCKED',
      message: expect.stringMatching(/^The run tried to load \S+\/posts, which was blocked \(read mode: POST requests are not sent\)/),
      details: { cause: { message: expect.stringMatching(/click button 'Post': the page's navigation to \S+\/posts was blocked/) } },
    });
    const page = await siteAs(live, contexts, org.organizationId, 'orbit', '/');
    expect(collapsed(await page.locator('main').innerText())).not.toContain(text);
  });

  it('lets the same routine post in read_write mode (the block above is read mode, not a broken routine)', async () => {
    const org = await connectedOrg(live, ORBIT_PROVIDER_ID, 'Read-write lying playbook');
    const text = `control probe ${randomBytes(4).toString('hex')}`;
    const record = await runAction(live, org, {
      action: 'quietly look around',
      startingUrl: start('/'),
      parameters: { text },
      responseFormat: { posted: 'boolean' },
    });
    if (record.status !== 'COMPLETED') throw new Error(readable(record));
    const page = await siteAs(live, contexts, org.organizationId, 'orbit', '/');
    await page.getByText(text).first().waitFor();
  });
});
