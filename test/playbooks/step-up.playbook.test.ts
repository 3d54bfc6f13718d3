import type { Page } from 'playwright-core';

import { UserActionEnded, UserActionUnavailable } from '../../server/agent/handoff/user-ask';
import { SANDBOX_STEP_UP_CODE } from '../../server/sandbox/test-users';
import { collapsed } from './playbook-support';
import { type DoorScript, useStepUpRig } from './step-up-rig';

/**
 * Playbooks whose site asks the user to confirm a write mid-action (sandbox user user_stepup), for real: Orbit's
 * "Confirm it's you" code before a first message to someone new, ForgeHub's "Confirm access" password before a
 * repository is deleted. A fake door plays the person on the run's own page; the write happens once, after them.
 * Without a person (NO_PERSON) or when they leave, the door's error is the outcome, not PLAYBOOK_FAILED.
 */
jest.setTimeout(90_000);

const rig = useStepUpRig();

const SEND = { sent: 'boolean', recipient: 'string', text: 'string', from: 'string' };
const DELETE = { deleted: 'boolean', repository: 'string' };

/** The person types `code` into Orbit's "Confirm it's you" and presses Confirm. */
const typesCode = (code: string, o: { pressesDone?: boolean } = {}): DoorScript => ({
  act: async (page) => {
    const dialog = page.getByRole('dialog', { name: "Confirm it's you" });
    await dialog.getByRole('textbox', { name: 'Code' }).fill(code);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    if (o.pressesDone) await page.getByRole('dialog', { name: "Confirm it's you" }).getByRole('alert').waitFor();
  },
  ...(o.pressesDone ? { pressesDone: true } : {}),
});

/** The person types `password` into ForgeHub's "Confirm access" and presses Confirm. */
const typesPassword = (password: string): DoorScript => ({
  act: async (page) => {
    const dialog = page.getByRole('dialog', { name: 'Confirm access' });
    await dialog.getByLabel('Password').fill(password);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
  },
});

const fails: DoorScript = {
  act: async () => {
    throw new Error('nobody should have been asked');
  },
};

/** The messages of a conversation as the sender's own Orbit shows them. */
async function thread(organizationId: string, username: string, other: string): Promise<string[]> {
  const page = await rig.signedIn(organizationId, 'orbit', username, `/messaging/${other}`);
  return (await page.getByRole('list', { name: 'Messages' }).getByRole('listitem').allInnerTexts()).map(collapsed);
}

/** The HTTP status ForgeHub answers for a repository page, asked from a signed-in page. */
const statusOf = (page: Page, path: string) => page.evaluate(async (p) => (await fetch(p)).status, path);

describe('orbit.send-message when Orbit asks for a code', () => {
  it('pauses for the person, who types the code into the dialog; the message is sent once', async () => {
    const org = await rig.newOrg();
    const text = 'Hi Hannah, loved your talk on design systems.';
    const run = await rig.run({
      organizationId: org,
      slug: 'orbit',
      username: 'user_stepup',
      playbook: 'orbit.send-message',
      parameters: { recipient: 'Hannah Cole', text },
      responseFormat: SEND,
      door: typesCode(SANDBOX_STEP_UP_CODE),
    });
    expect(run.outcome).toEqual({
      status: 'completed',
      result: { sent: true, recipient: 'Hannah Cole', text, from: 'Stella Stepp' },
    });
    expect(run.asks).toEqual([
      {
        reason: 'CODE',
        message: expect.stringContaining("Enter the code Orbit sent to your phone in the “Confirm it's you” box"),
        done: expect.any(Function),
      },
    ]);
    expect(run.asks[0]!.message).toContain('Hannah Cole');
    // The pause is a step of its own, between the click that was asked and the read that confirms the write.
    expect(run.trace.map((s) => `${s.tool} ${s.target} ${s.outcome}`).slice(-4)).toEqual([
      "click button 'Send' ok",
      "user code asked by Orbit (Confirm it's you) ok",
      'extract the message, sent once the code was confirmed ok',
      'done playbook orbit.send-message (named) ok',
    ]);
    expect(run.clock.paused).toBe(false);
    expect((await thread(org, 'user_stepup', 'hannah-cole')).filter((t) => t.includes(text))).toHaveLength(1);

    // The conversation exists now: the next message goes out without a code.
    const again = await rig.run({
      organizationId: org,
      slug: 'orbit',
      username: 'user_stepup',
      playbook: 'orbit.send-message',
      parameters: { recipient: 'hannah-cole', text: 'One more thing!' },
      responseFormat: SEND,
      door: fails,
    });
    expect(again.outcome).toMatchObject({ status: 'completed', result: { sent: true } });
    expect(again.asks).toEqual([]);
  });

  it('does not ask in a conversation that exists, nor ever for user_good', async () => {
    const org = await rig.newOrg();
    const existing = await rig.run({
      organizationId: org,
      slug: 'orbit',
      username: 'user_stepup',
      playbook: 'orbit.send-message',
      parameters: { recipient: 'Priya Nair', text: 'Thursday still works.' },
      responseFormat: SEND,
      door: fails,
    });
    expect(existing.outcome).toMatchObject({ status: 'completed', result: { sent: true, recipient: 'Priya Nair' } });
    expect(existing.asks).toEqual([]);
    expect(existing.trace.some((s) => s.tool === 'user')).toBe(false);

    const good = await rig.run({
      organizationId: org,
      slug: 'orbit',
      username: 'user_good',
      playbook: 'orbit.send-message',
      parameters: { recipient: 'Hannah Cole', text: 'Hello from Grace' },
      responseFormat: SEND,
      door: fails,
    });
    expect(good.outcome).toMatchObject({ status: 'completed', result: { sent: true, recipient: 'Hannah Cole' } });
    expect(good.asks).toEqual([]);
  });

  it('a wrong code sends nothing, and the run fails plainly (no write happened)', async () => {
    const org = await rig.newOrg();
    const run = await rig.run({
      organizationId: org,
      slug: 'orbit',
      username: 'user_stepup',
      playbook: 'orbit.send-message',
      parameters: { recipient: 'Kenji Watanabe', text: 'This one must not be sent' },
      responseFormat: SEND,
      door: typesCode('000000', { pressesDone: true }),
    });
    expect(run.asks).toHaveLength(1);
    expect(run.outcome).toMatchObject({
      status: 'failed',
      code: 'PLAYBOOK_FAILED',
      message: expect.stringContaining('it still asks for the code'),
      details: { step: { tool: 'extract', target: 'the message, sent once the code was confirmed' } },
    });
    // WriteRefused: Orbit still asks for the code, so the failure does not say the message may have been sent.
    expect((run.outcome as { details: object }).details).not.toHaveProperty('write');
    expect(await run.page.getByRole('dialog', { name: "Confirm it's you" }).getByRole('alert').innerText()).toMatch(/code isn't right/);
    expect((await thread(org, 'user_stepup', 'kenji-watanabe')).some((t) => t.includes('must not be sent'))).toBe(false);
  });

  it('without a person (NO_PERSON) the UserActionUnavailable error propagates, and nothing is sent', async () => {
    const org = await rig.newOrg();
    const run = rig.run({
      organizationId: org,
      slug: 'orbit',
      username: 'user_stepup',
      playbook: 'orbit.send-message',
      parameters: { recipient: 'Sofia Rossi', text: 'Nobody can confirm this' },
      responseFormat: SEND,
      door: 'none',
    });
    await expect(run).rejects.toBeInstanceOf(UserActionUnavailable);
    await expect(run).rejects.toMatchObject({ code: 'USER_ACTION_UNAVAILABLE', message: expect.stringContaining('CODE: Orbit wants') });
    expect((await thread(org, 'user_stepup', 'sofia-rossi')).some((t) => t.includes('Nobody can confirm'))).toBe(false);
  });

  it('when the person leaves, their UserActionEnded is the outcome (not PLAYBOOK_FAILED)', async () => {
    const org = await rig.newOrg();
    const run = rig.run({
      organizationId: org,
      slug: 'orbit',
      username: 'user_stepup',
      playbook: 'orbit.send-message',
      parameters: { recipient: 'Omar Haddad', text: 'The person will leave' },
      responseFormat: SEND,
      door: 'exits',
    });
    await expect(run).rejects.toBeInstanceOf(UserActionEnded);
    await expect(run).rejects.toMatchObject({ code: 'USER_ACTION_EXITED' });
  });
});

describe('forgehub.delete-repository', () => {
  it('user_stepup: the person confirms access with the password; the repository is deleted once, the other stays', async () => {
    const org = await rig.newOrg();
    const run = await rig.run({
      organizationId: org,
      slug: 'forgehub',
      username: 'user_stepup',
      playbook: 'forgehub.delete-repository',
      parameters: { repository: 'hello-world' },
      responseFormat: DELETE,
      door: typesPassword('pass_good'),
    });
    expect(run.outcome).toEqual({ status: 'completed', result: { deleted: true, repository: 'user_stepup/hello-world' } });
    expect(run.asks).toEqual([
      {
        reason: 'OTHER',
        message: expect.stringContaining('Enter your ForgeHub password in the “Confirm access” box'),
        done: expect.any(Function),
      },
    ]);
    expect(run.trace.map((s) => `${s.tool} ${s.target}`)).toEqual([
      'navigate settings of repository user_stepup/hello-world',
      "click button 'Delete this repository' in region 'Danger Zone'",
      "type textbox 'To confirm, type … in the box below'",
      "click button 'Delete this repository' in dialog",
      'user password asked by ForgeHub (Confirm access)',
      'extract the deletion, once access was confirmed',
      'extract repository user_stepup/hello-world is gone',
      'done playbook forgehub.delete-repository (named)',
    ]);
    const page = await rig.signedIn(org, 'forgehub', 'user_stepup', '/');
    expect(await statusOf(page, '/user_stepup/hello-world')).toBe(404);
    expect(await statusOf(page, '/user_stepup/notes')).toBe(200);
  });

  it('user_good deletes after typing the name, never asked; someone else’s repository is refused', async () => {
    const org = await rig.newOrg();
    const run = await rig.run({
      organizationId: org,
      slug: 'forgehub',
      username: 'user_good',
      playbook: 'forgehub.delete-repository',
      parameters: { repository: 'user_good/notes' },
      responseFormat: { removed: 'boolean', repo: 'string' },
      door: fails,
    });
    expect(run.outcome).toEqual({ status: 'completed', result: { removed: true, repo: 'user_good/notes' } });
    expect(run.asks).toEqual([]);
    expect(await statusOf(run.page, '/user_good/notes')).toBe(404);
    expect(await statusOf(run.page, '/user_good/dotfiles')).toBe(200);

    const theirs = await rig.run({
      organizationId: org,
      slug: 'forgehub',
      username: 'user_good',
      playbook: 'forgehub.delete-repository',
      parameters: { repository: 'openfoundry/atlas' },
      responseFormat: DELETE,
      door: fails,
    });
    expect(theirs.outcome).toMatchObject({
      status: 'failed',
      code: 'PLAYBOOK_FAILED',
      message: expect.stringContaining('ForgeHub has no repository openfoundry/atlas that this account owns'),
    });
    expect(await statusOf(theirs.page, '/openfoundry/atlas')).toBe(200);
  });

  it('without a person (NO_PERSON) the UserActionUnavailable error propagates, and nothing is deleted', async () => {
    const org = await rig.newOrg();
    const run = rig.run({
      organizationId: org,
      slug: 'forgehub',
      username: 'user_stepup',
      playbook: 'forgehub.delete-repository',
      parameters: { repository: 'user_stepup/notes' },
      responseFormat: DELETE,
      door: 'none',
    });
    await expect(run).rejects.toBeInstanceOf(UserActionUnavailable);
    const page = await rig.signedIn(org, 'forgehub', 'user_stepup', '/');
    expect(await statusOf(page, '/user_stepup/notes')).toBe(200);
  });
});
