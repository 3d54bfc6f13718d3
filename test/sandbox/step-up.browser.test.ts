import type { Page } from 'playwright-core';

import { SANDBOX_STEP_UP_CODE } from '../../server/sandbox/test-users';
import { useStepUpRig } from '../playbooks/step-up-rig';

/**
 * The step-up user (user_stepup) on the simulated sites, as a person meets it and as a forger would try it: Orbit
 * asks for a code before a first message to someone new, ForgeHub for the password before a repository is deleted.
 * The sites enforce it on the server: a post from the page itself (with its CSRF token, as a page script would
 * send it) without the proof, with a made-up or another session's challenge, or a used one, changes nothing.
 */
jest.setTimeout(60_000);

const rig = useStepUpRig();

const messagesIn = async (page: Page) =>
  (await page.getByRole('list', { name: 'Messages' }).getByRole('listitem').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());

/** A form post from the page (Chromium resolves *.localhost; Node does not), with the page's CSRF token. */
async function postForm(page: Page, path: string, fields: Record<string, string>): Promise<{ status: number; url: string; body: string }> {
  return page.evaluate(
    async ({ path, fields }) => {
      const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';
      const res = await fetch(path, { method: 'POST', body: new URLSearchParams({ _csrf: csrf, ...fields }) });
      return { status: res.status, url: new URL(res.url).pathname, body: await res.text() };
    },
    { path, fields },
  );
}

const challengeIn = (body: string, name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(body)?.[1] ?? null;

describe("Orbit: “Confirm it's you” before a first message to someone new", () => {
  it('asks in an accessible dialog; a wrong code shows an error and sends nothing; the right one sends once', async () => {
    const org = await rig.newOrg();
    const page = await rig.signedIn(org, 'orbit', 'user_stepup', '/messaging/hannah-cole');
    await page.getByRole('textbox', { name: 'Write a message' }).fill('Hello Hannah!');
    await page.getByRole('button', { name: 'Send', exact: true }).click();

    const dialog = page.getByRole('dialog', { name: "Confirm it's you" });
    await dialog.waitFor();
    expect(await dialog.getAttribute('aria-modal')).toBe('true');
    expect(await dialog.innerText()).toMatch(/We sent a 6-digit code to your phone/);
    const code = dialog.getByRole('textbox', { name: 'Code' });
    expect(await code.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await dialog.getByRole('button', { name: 'Cancel' }).isVisible()).toBe(true);
    // Nothing sent yet; the text waits in the box.
    expect(await messagesIn(page)).toEqual(['This is the beginning of your conversation with Hannah Cole.']);
    expect(await page.getByRole('textbox', { name: 'Write a message' }).inputValue()).toBe('Hello Hannah!');

    // Cancel closes the dialog and keeps the text; Send asks again.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await dialog.waitFor();

    await code.fill('111111');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await dialog.getByRole('alert').waitFor();
    expect(await dialog.getByRole('alert').innerText()).toBe("That code isn't right. Check the code we sent to your phone and try again.");
    expect(await code.getAttribute('aria-invalid')).toBe('true');
    expect((await messagesIn(page)).some((t) => t.includes('Hello Hannah!'))).toBe(false);

    await code.fill(SANDBOX_STEP_UP_CODE);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await messagesIn(page)).filter((t) => t.includes('Hello Hannah!'))).toHaveLength(1);

    // Now a conversation: no more codes.
    await page.getByRole('textbox', { name: 'Write a message' }).fill('Second message');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByRole('list', { name: 'Messages' }).getByRole('listitem').filter({ hasText: 'Second message' }).waitFor();
    expect(await dialog.count()).toBe(0);
  });

  it('the server sends nothing without the proof: no challenge, a made-up one, another session’s, or one used already', async () => {
    const org = await rig.newOrg();
    const page = await rig.signedIn(org, 'orbit', 'user_stepup', '/messaging/tom-okoro');
    const other = await rig.signedIn(org, 'orbit', 'user_stepup', '/messaging/tom-okoro');

    const asked = await postForm(page, '/messaging/tom-okoro', { text: 'Forged first message' });
    expect(asked.status).toBe(200);
    expect(asked.body).toContain('role="dialog"');
    expect(asked.body).toContain("Confirm it's you");
    const challenge = challengeIn(asked.body, 'challenge');
    expect(challenge).toMatch(/^[A-Za-z0-9_-]{20,}$/);

    const forged: Record<string, string>[] = [
      { code: SANDBOX_STEP_UP_CODE },
      { code: SANDBOX_STEP_UP_CODE, challenge: 'made-up-challenge-value' },
      { code: SANDBOX_STEP_UP_CODE, text: 'Smuggled text', challenge: '' },
    ];
    for (const fields of forged) {
      const refused = await postForm(page, '/messaging/tom-okoro/confirm', fields);
      expect(refused.url).toBe('/messaging/tom-okoro');
    }
    // Another session of the same user cannot use this session's challenge (and using it up there does not count).
    await postForm(other, '/messaging/tom-okoro/confirm', { challenge: challenge!, code: SANDBOX_STEP_UP_CODE });
    await page.reload();
    expect(await messagesIn(page)).toEqual(['This is the beginning of your conversation with Tom Okoro.']);

    // The proof itself: a fresh challenge, confirmed once; posting it again sends nothing more.
    const fresh = challengeIn((await postForm(page, '/messaging/tom-okoro', { text: 'Confirmed first message' })).body, 'challenge')!;
    await postForm(page, '/messaging/tom-okoro/confirm', { challenge: fresh, code: SANDBOX_STEP_UP_CODE });
    await postForm(page, '/messaging/tom-okoro/confirm', { challenge: fresh, code: SANDBOX_STEP_UP_CODE });
    await page.reload();
    expect((await messagesIn(page)).filter((t) => t.includes('Confirmed first message'))).toHaveLength(1);
    expect((await messagesIn(page)).some((t) => t.includes('Forged first message'))).toBe(false);
  });

  it('stops after five wrong codes: the message is dropped and must be sent again', async () => {
    const org = await rig.newOrg();
    const page = await rig.signedIn(org, 'orbit', 'user_stepup', '/messaging/grace-liu');
    let body = (await postForm(page, '/messaging/grace-liu', { text: 'Guess me' })).body;
    for (let i = 0; i < 4; i++) {
      const wrong = await postForm(page, '/messaging/grace-liu/confirm', { challenge: challengeIn(body, 'challenge')!, code: '999999' });
      expect(wrong.status).toBe(422);
      body = wrong.body;
    }
    const last = await postForm(page, '/messaging/grace-liu/confirm', { challenge: challengeIn(body, 'challenge')!, code: '999999' });
    expect(last.url).toBe('/messaging/grace-liu');
    expect(last.body).toContain('Too many wrong codes');
    expect(challengeIn(last.body, 'challenge')).toBeNull();
  });
});

describe('ForgeHub: “Delete this repository”, and “Confirm access” for user_stepup', () => {
  it('the owner’s Settings: type the name, then (user_stepup) the password; errors keep the repository', async () => {
    const org = await rig.newOrg();
    const page = await rig.signedIn(org, 'forgehub', 'user_stepup', '/user_stepup/hello-world');
    await page.getByRole('navigation', { name: 'Repository' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();

    const zone = page.getByRole('region', { name: 'Danger Zone' });
    await zone.getByRole('button', { name: 'Delete this repository' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete user_stepup/hello-world' });
    await dialog.getByRole('textbox', { name: 'To confirm, type user_stepup/hello-world in the box below' }).fill('hello-world');
    await dialog.getByRole('button', { name: 'Delete this repository' }).click();
    await dialog.getByRole('alert').waitFor();
    expect(await dialog.getByRole('alert').innerText()).toBe('To delete the repository, type user_stepup/hello-world exactly as shown.');

    await dialog.getByRole('textbox', { name: /^To confirm, type/ }).fill('user_stepup/hello-world');
    await dialog.getByRole('button', { name: 'Delete this repository' }).click();
    const sudo = page.getByRole('dialog', { name: 'Confirm access' });
    await sudo.waitFor();
    expect(await sudo.innerText()).toMatch(/Signed in as @user_stepup: confirm your password to delete user_stepup\/hello-world/);
    await sudo.getByLabel('Password').fill('not-my-password');
    await sudo.getByRole('button', { name: 'Confirm' }).click();
    await sudo.getByRole('alert').waitFor();
    expect(await sudo.getByRole('alert').innerText()).toBe('Incorrect password.');
    expect(await page.evaluate(async () => (await fetch('/user_stepup/hello-world')).status)).toBe(200);

    await sudo.getByLabel('Password').fill('pass_good');
    await sudo.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').filter({ hasText: 'Your repository “user_stepup/hello-world” was successfully deleted.' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    expect(await page.evaluate(async () => (await fetch('/user_stepup/hello-world')).status)).toBe(404);
    // Its issue went with it: a repository of the same name starts empty.
    await page.goto(rig.live.siteUrl('forgehub', '/new'));
    await page.getByRole('textbox', { name: /^Repository name/ }).fill('hello-world');
    await page.getByRole('button', { name: 'Create repository' }).click();
    await page.getByText('This repository is empty.').waitFor();
    const tabs = page.getByRole('navigation', { name: 'Repository' });
    expect(await tabs.getByRole('link', { name: /^Issues/ }).innerText()).toMatch(/Issues\s*0/);
  });

  it('the server deletes nothing for user_stepup without the password proof; user_good deletes with the name alone', async () => {
    const org = await rig.newOrg();
    const page = await rig.signedIn(org, 'forgehub', 'user_stepup', '/user_stepup/notes/settings');
    const other = await rig.signedIn(org, 'forgehub', 'user_stepup', '/user_stepup/notes/settings');
    const status = () => page.evaluate(async () => (await fetch('/user_stepup/notes')).status);

    const asked = await postForm(page, '/user_stepup/notes/delete', { verify: 'user_stepup/notes', password: 'pass_good' });
    expect(asked.status).toBe(200);
    expect(asked.body).toContain('Confirm access');
    const sudo = challengeIn(asked.body, 'sudo');
    expect(sudo).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    await postForm(page, '/user_stepup/notes/delete', { verify: 'user_stepup/notes', password: 'pass_good', sudo: 'made-up' });
    await postForm(other, '/user_stepup/notes/delete', { verify: 'user_stepup/notes', password: 'pass_good', sudo: sudo! });
    await postForm(page, '/user_stepup/notes/delete', { verify: 'user_stepup/other', password: 'pass_good', sudo: sudo! });
    expect(await status()).toBe(200);

    // Another user cannot even see it (private), let alone delete it; others' repositories have no Settings for them.
    const good = await rig.signedIn(org, 'forgehub', 'user_good', '/openfoundry/atlas');
    expect(await good.getByRole('navigation', { name: 'Repository' }).getByRole('link', { name: 'Settings' }).count()).toBe(0);
    expect(await good.evaluate(async () => (await fetch('/openfoundry/atlas/settings')).status)).toBe(404);
    expect((await postForm(good, '/user_stepup/notes/delete', { verify: 'user_stepup/notes' })).status).toBe(404);
    expect((await postForm(good, '/openfoundry/atlas/delete', { verify: 'openfoundry/atlas' })).status).toBe(404);
    expect(await status()).toBe(200);

    const fresh = challengeIn((await postForm(page, '/user_stepup/notes/delete', { verify: 'user_stepup/notes' })).body, 'sudo')!;
    const done = await postForm(page, '/user_stepup/notes/delete', { verify: 'user_stepup/notes', password: 'pass_good', sudo: fresh });
    expect(done.url).toBe('/');
    expect(await status()).toBe(404);

    const deleted = await postForm(good, '/user_good/notes/delete', { verify: 'user_good/notes' });
    expect(deleted.url).toBe('/');
    expect(deleted.body).toContain('Your repository “user_good/notes” was successfully deleted.');
    expect(await good.evaluate(async () => (await fetch('/user_good/notes')).status)).toBe(404);
  });
});
