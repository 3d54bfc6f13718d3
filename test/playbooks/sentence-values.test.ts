import { fillParameters } from '../../server/agent/playbooks/fill-parameters';
import { sentenceSpans, sentenceValues, withSlotWords } from '../../server/agent/playbooks/sentence-values';
import { builtInPlaybooks } from '../support/integrations';

/**
 * Values written in the action fill the parameters that `parameters` does not give (no browser): each rule of
 * sentence-values.ts, then the precedence of fill-parameters.ts (explicit parameters and their aliases, then
 * the action, then the starting URL) and the precise errors when a value does not fit.
 */
const playbooks = builtInPlaybooks();
/** Unclosed quotes and a long run of capitalised words (bench/routing.bench.ts times the same input). */
const HOSTILE_ACTION = `${"'a".repeat(2000)} to ${'A '.repeat(1000)}`;
const playbook = (name: string) => playbooks.list().find((p) => p.name === name)!;

describe('values written in the action', () => {
  it.each([
    // quoted text, in every common quote style; apostrophes are not quotes
    [`Send a message to Priya Nair saying 'Running late, sorry!'`, { person: 'Priya Nair', text: 'Running late, sorry!' }],
    [`Create a post saying "Hello world"`, { text: 'Hello world' }],
    ['Create a post saying \u201cCurly quotes\u201d', { text: 'Curly quotes' }],
    [`Post 'I'm back, and it's good' to my feed`, { text: "I'm back, and it's good" }],
    [`Comment 'Great post!' on Marcus's post`, { text: 'Great post!', person: 'Marcus' }],
    // unquoted text after "saying"
    [`Send a message to priya saying I'll be there at 5`, { person: 'priya', text: "I'll be there at 5" }],
    ['Message Priya saying thanks', { person: 'Priya', text: 'thanks' }],
    // to / with <person>, @handles, user names, Capitalised Names (never the first word)
    ['Write a direct message to jonas-berg', { person: 'jonas-berg' }],
    ['DM @priya-nair', { person: '@priya-nair' }],
    ['DM lena-fischer', { person: 'lena-fischer' }],
    ['Follow Priya Nair', { person: 'Priya Nair' }],
    ['Share an update with my network', {}],
    ['Priya is great; read my feed', {}],
    // called / named / titled <name>
    ['Create a repository called demo', { name: 'demo' }],
    [`Create a repository named 'my-notes'`, { name: 'my-notes' }],
    [`Create a new repository 'website'`, { name: 'website' }],
    [`Open an issue titled "Crash on start" in openfoundry/atlas`, { name: 'Crash on start', repository: 'openfoundry/atlas' }],
    // owner/name, #number
    ['Open issue #3 in openfoundry/atlas', { number: 3, repository: 'openfoundry/atlas' }],
    ['Close issue 12', { number: 12 }],
    ['Star kestrel-labs/kestrel.git, please', { repository: 'kestrel-labs/kestrel' }],
    ['Open https://example.com/a/b', {}],
    // last / latest / first N, and numbers in words
    ['Read my last 5 posts', { count: 5 }],
    ['Summarize the 5 latest posts in my news feed', { count: 5 }],
    ['List the first three repositories', { count: 3 }],
    ['Get my follower count', {}],
  ])('%s', (action, expected) => {
    expect(sentenceValues(action)).toEqual(expected);
  });

  it('gives each value once, where it was written, and the router sees slot words instead', () => {
    const action = `Send a message to Priya Nair saying 'Hi'`;
    const spans = sentenceSpans(action);
    expect(spans.map((s) => [s.slot, action.slice(s.start, s.end)])).toEqual([
      ['person', 'Priya Nair'],
      ['text', `'Hi'`],
    ]);
    expect(withSlotWords(action).replace(/\s+/g, ' ').trim()).toBe('Send a message to v_person saying v_text');
  });

  it('answers on long hostile input (no runaway backtracking: how fast is bench material, npm run bench:routing)', () => {
    expect(sentenceValues(HOSTILE_ACTION)).toEqual({});
  });
});

describe('filling parameters', () => {
  const fill = (name: string, action: string, parameters: Record<string, unknown> = {}, startingUrl?: string) =>
    fillParameters(playbook(name), { action, parameters, ...(startingUrl ? { startingUrl } : {}) });

  it('fills what parameters do not give from the action, and says which values came from it', () => {
    expect(fill('orbit.send-message', `Send a message to Priya Nair saying 'Running late'`)).toEqual({
      ok: true,
      params: { recipient: 'Priya Nair', text: 'Running late' },
      filled: { recipient: { from: 'action', value: 'Priya Nair' }, text: { from: 'action', value: 'Running late' } },
    });
    expect(fill('orbit.read-my-feed', 'Read the 5 latest posts in my feed')).toMatchObject({ ok: true, params: { limit: 5 } });
    expect(fill('forgehub.create-repository', 'Create a repository called demo')).toMatchObject({ ok: true, params: { name: 'demo' } });
    expect(fill('forgehub.open-issue', `Open an issue titled 'Crash' in openfoundry/atlas`)).toMatchObject({
      ok: true,
      params: { repository: 'openfoundry/atlas', title: 'Crash' },
    });
    // The title falls back to quoted text when nothing is "called" anything.
    expect(fill('forgehub.open-issue', `Open an issue 'Crash on start' in openfoundry/atlas`)).toMatchObject({
      params: { title: 'Crash on start' },
    });
  });

  it('lets explicit parameters win, under their own names and their aliases', () => {
    expect(fill('orbit.send-message', `Send a message to Priya saying 'from the action'`, { text: 'explicit' })).toMatchObject({
      params: { recipient: 'Priya', text: 'explicit' },
    });
    expect(fill('orbit.send-message', `Send a message to Priya saying 'from the action'`, { to: 'marcus-webb', message: 'alias' })).toEqual(
      {
        ok: true,
        params: { recipient: 'marcus-webb', text: 'alias' },
        filled: {},
      },
    );
    expect(fill('orbit.read-my-feed', 'Read my last 5 posts in my feed', { count: 12 })).toMatchObject({ params: { limit: 12 } });
  });

  it('takes the repository from the starting URL last: an action started on its page is about it', () => {
    const url = 'http://forgehub.sandbox.localhost:3000/tobiasw/tiny-lisp/issues';
    expect(fill('forgehub.star-repository', 'Star this repository', {}, url)).toEqual({
      ok: true,
      params: { repository: 'tobiasw/tiny-lisp' },
      filled: { repository: { from: 'startingUrl', value: 'tobiasw/tiny-lisp' } },
    });
    expect(fill('forgehub.star-repository', 'Star openfoundry/atlas', {}, url)).toMatchObject({
      params: { repository: 'openfoundry/atlas' },
    });
    expect(fill('forgehub.star-repository', 'Star it', { repo: 'kestrel-labs/kestrel' }, url)).toMatchObject({
      params: { repository: 'kestrel-labs/kestrel' },
    });
    for (const notARepository of ['http://forgehub.sandbox.localhost:3000/', 'http://forgehub.sandbox.localhost:3000/repositories?q=x']) {
      expect(fill('forgehub.star-repository', 'Star this repository', {}, notARepository)).toMatchObject({
        ok: false,
        code: 'PLAYBOOK_PARAMETERS_MISSING',
        issues: [{ path: 'parameters.repository' }],
      });
    }
  });

  it('names the missing parameter, and a value from the action that does not fit, with where it came from', () => {
    expect(fill('orbit.create-post', 'Create a post')).toEqual({
      ok: false,
      code: 'PLAYBOOK_PARAMETERS_MISSING',
      issues: [{ path: 'parameters.text', message: 'Required' }],
    });
    expect(fill('orbit.send-message', 'Send a message to Priya Nair')).toMatchObject({
      ok: false,
      code: 'PLAYBOOK_PARAMETERS_MISSING',
      issues: [{ path: 'parameters.text' }],
    });
    expect(fill('orbit.read-my-feed', 'Read the 80 latest posts in my feed')).toEqual({
      ok: false,
      code: 'PLAYBOOK_PARAMETERS_INVALID',
      issues: [
        { path: 'parameters.limit', message: 'at most 50 posts are read at once (read from the action: 80)', source: 'action', value: 80 },
      ],
    });
    expect(fill('forgehub.create-repository', `Create a repository called 'bad name!'`)).toMatchObject({
      ok: false,
      code: 'PLAYBOOK_PARAMETERS_INVALID',
      issues: [{ path: 'parameters.name', source: 'action', value: 'bad name!' }],
    });
    expect(fill('orbit.create-post', 'Create a post', { text: 'Hi', hashtags: ['x'] })).toMatchObject({
      ok: false,
      code: 'PLAYBOOK_PARAMETERS_INVALID',
      issues: [{ path: 'parameters' }],
    });
  });
});
