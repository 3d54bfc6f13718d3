import type { Page, Request } from 'playwright-core';

import type { RunContext } from '../../server/agent/run/context';
import { plannerStrategy, replayStrategy, trajectoryKeyOf } from '../../server/agent/strategies';
import { deps, headingOf, model, newOrg, numberIn, obs, runContext, server, usePlannerServers } from './planner-support';

/**
 * Faster replay (issue 24): a planner's click on a same-origin link that navigated to the link's href is recorded with
 * that href, and the replay — after finding the link again and checking that it still carries the same href — opens
 * it as a navigation, as a hand-written script's goto does, instead of clicking and waiting for the click to settle.
 * A link that carries another href on replay is clicked as before; a click a script routed elsewhere records no href.
 *
 * Told apart by the request that loads the next page: a click on a link sends the page it was on as Referer, a goto
 * sends none.
 */
jest.setTimeout(90_000);

usePlannerServers();

const FORMAT = { name: 'string - full name', followers: 'integer - number of followers' };

function teach() {
  model.setScript((t) => {
    const o = obs(t);
    if (new URL(o.url).pathname.startsWith('/in/'))
      return { tool: 'done', args: { success: true, data: { name: headingOf(o), followers: numberIn(o, /^([\d,]+) followers?$/m) } } };
    return { tool: 'click', args: { index: o.find('link', 'Me') } };
  });
}

/** The main-frame document requests of a page from now on. */
function documents(page: Page): Request[] {
  const seen: Request[] = [];
  page.on('request', (r) => {
    if (r.isNavigationRequest() && r.frame() === page.mainFrame()) seen.push(r);
  });
  return seen;
}

async function storedSteps(ctx: RunContext) {
  const { key } = trajectoryKeyOf(ctx);
  const row = await server.services.store.repos.agentTrajectories.findById(key);
  return (row?.trajectory as { steps: { tool: string; args: Record<string, unknown> }[] } | undefined)?.steps;
}

describe('a recorded link click on replay', () => {
  it('is followed as a navigation to its href when the live link still carries it (no click, no Referer)', async () => {
    const request = {
      organizationId: await newOrg(),
      slug: 'orbit' as const,
      path: '/',
      action: 'Read my profile',
      responseFormat: FORMAT,
    };
    teach();
    const first = await runContext(request);
    expect(await plannerStrategy(deps()).run(first.ctx)).toMatchObject({ status: 'completed' });
    // The click went to /me (the server redirects it to the profile): the href is recorded as the site's path.
    expect(await storedSteps(first.ctx)).toEqual([expect.objectContaining({ tool: 'click', args: { href: '/me' } })]);

    model.setScript(() => ({ status: 500 }));
    const second = await runContext(request);
    const loads = documents(second.page);
    const replayed = await replayStrategy(deps()).run(second.ctx);
    expect(replayed).toMatchObject({ status: 'completed', result: { name: 'Grace Goodwin', followers: expect.any(Number) } });
    const me = loads.find((r) => new URL(r.url()).pathname === '/me');
    expect(me).toBeDefined();
    expect(await me!.headerValue('referer')).toBeNull();
    expect(second.trace.map((s) => [s.tool, s.target, s.outcome])).toEqual([
      ['click', "link 'Me' in navigation 'Main'", 'ok'],
      ['extract', undefined, 'ok'],
    ]);
  });

  it('is clicked when the live link carries another href, and the replay goes where the click goes', async () => {
    const request = {
      organizationId: await newOrg(),
      slug: 'orbit' as const,
      path: '/',
      action: 'Read my profile',
      responseFormat: FORMAT,
    };
    teach();
    const first = await runContext(request);
    expect(await plannerStrategy(deps()).run(first.ctx)).toMatchObject({ status: 'completed' });

    model.setScript(() => ({ status: 500 }));
    const second = await runContext(request);
    // The site now points "Me" at the profile page itself: not the href the recording followed.
    await second.page.evaluate(() => {
      const me = [...document.querySelectorAll('a')].find((a) => a.textContent?.trim() === 'Me')!;
      me.setAttribute('href', '/in/user_good?tab=about');
    });
    const loads = documents(second.page);
    expect(await replayStrategy(deps()).run(second.ctx)).toMatchObject({ status: 'completed', result: { name: 'Grace Goodwin' } });
    expect(loads.some((r) => new URL(r.url()).pathname === '/me')).toBe(false);
    const clicked = loads.find((r) => new URL(r.url()).search === '?tab=about');
    expect(clicked).toBeDefined();
    // A click: the page it was on is the Referer.
    expect(await clicked!.headerValue('referer')).toBe(server.siteUrl('orbit', '/'));
  });

  it('records no href when a script routed the click somewhere else than the link says', async () => {
    const request = {
      organizationId: await newOrg(),
      slug: 'orbit' as const,
      path: '/',
      action: 'Read my profile',
      responseFormat: FORMAT,
    };
    teach();
    const first = await runContext(request);
    await first.page.evaluate(() => {
      const me = [...document.querySelectorAll('a')].find((a) => a.textContent?.trim() === 'Me')!;
      me.addEventListener('click', (e) => {
        e.preventDefault();
        location.assign('/in/user_good?via=script');
      });
    });
    expect(await plannerStrategy(deps()).run(first.ctx)).toMatchObject({ status: 'completed' });
    expect(await storedSteps(first.ctx)).toEqual([expect.objectContaining({ tool: 'click', args: {} })]);
  });
});
