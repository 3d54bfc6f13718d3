import { PlaybookNotApplicable } from '../../server/agent/playbooks/errors';
import { fieldByMeaning } from '../../server/agent/playbooks/result-words';
import { shapeToFormat } from '../../server/agent/playbooks/shape';
import { shapeListToFormat } from '../../server/agent/playbooks/shape-list';
import { builtInPlaybooks } from '../support/integrations';

/**
 * Result fields matched by their description as well as their name (issue #24, no browser): a key the caller
 * named their own way (`total: "integer - how many issues were listed"`) finds the playbook's field whose name and
 * declared description (its resultFields) say the same, and nothing when no field clearly does.
 */
const playbooks = builtInPlaybooks();
const declared = (name: string) => playbooks.list().find((p) => p.name === name)!.resultFields;

const profile = {
  name: 'Priya Nair',
  username: 'priya-nair',
  headline: 'Staff engineer',
  location: 'Berlin',
  about: 'Builds things',
  followers: 120,
  following: 80,
  profileUrl: 'http://orbit.sandbox.localhost/in/priya-nair',
};

describe('result fields by description', () => {
  it.each([
    // the description says who follows whom: followers are people who follow me, following the people I follow
    [{ fans: 'integer - how many people follow me' }, { fans: 120 }],
    [{ audienceSize: 'integer - how many people follow me' }, { audienceSize: 120 }],
    [{ followingCount: 'integer - how many people I follow' }, { followingCount: 80 }],
    // the key's own words, or a common other word for the field
    [{ tagline: 'string' }, { tagline: 'Staff engineer' }],
    [{ city: 'string - where I am located' }, { city: 'Berlin' }],
    [{ bio: 'string? - the about section' }, { bio: 'Builds things' }],
    [{ handle: 'string - my username' }, { handle: 'priya-nair' }],
  ])('profile %j → %j', (format, expected) => {
    expect(shapeToFormat(profile, format, {}, '', { fieldMeanings: declared('orbit.read-my-profile') })).toEqual(expected);
  });

  it('reads the description of the list and of each item (count for "total", labels for "tags")', () => {
    const item = {
      repository: 'acme/api',
      number: 3,
      title: 'Crash',
      state: 'open',
      author: 'lena',
      labels: ['bug'],
      comments: 2,
      url: 'u',
      at: null,
    };
    const shaped = shapeListToFormat(
      { items: [item], extras: { count: 1, scope: 'created' } },
      {
        tickets: [{ heading: 'string - the issue title', reporter: 'string - who opened it', tags: ['string'] }],
        total: 'integer - how many issues were listed',
      },
      '',
      { fieldMeanings: declared('forgehub.list-my-issues') },
    );
    expect(shaped).toEqual({ tickets: [{ heading: 'Crash', reporter: 'lena', tags: ['bug'] }], total: 1 });
  });

  it('refuses a key no field clearly means, and never fills a leaf with a value of another type', () => {
    const fieldMeanings = declared('orbit.read-my-profile');
    expect(() => shapeToFormat(profile, { salary: 'integer - what I earn' }, {}, '', { fieldMeanings })).toThrow(PlaybookNotApplicable);
    // "people" alone says followers as much as following: a tie is no answer
    expect(() => shapeToFormat(profile, { people: 'integer' }, {}, '', { fieldMeanings })).toThrow(PlaybookNotApplicable);
    // a number for "whether …" would be invented: only a boolean may answer a boolean
    expect(() => shapeToFormat(profile, { popular: 'boolean - whether many people follow me' }, {}, '', { fieldMeanings })).toThrow(
      PlaybookNotApplicable,
    );
  });

  it('weighs what the key says over a description word that only sounds alike ("sender" is not "sent at")', () => {
    const fields = [
      { name: 'sentAt', description: 'when it was sent' },
      { name: 'from', description: 'the sender as the conversation shows them' },
    ];
    expect(fieldByMeaning('sender', 'who sent it', fields)).toBe('from');
    expect(fieldByMeaning('to', undefined, [{ name: 'recipient' }, { name: 'text' }])).toBe('recipient');
    expect(
      fieldByMeaning('who', 'the author', [
        { name: 'author' },
        { name: 'authorUsername' },
        { name: 'repostedBy', description: 'who reposted it into the feed' },
      ]),
    ).toBe('author');
  });
});
