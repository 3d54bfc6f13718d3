import Ajv from 'ajv';
import addFormats from 'ajv-formats';

import {
  checkResponseFormat,
  compileResponseFormat,
  formatPath,
  LEAF_TYPES,
  parseLeaf,
  RESPONSE_FORMAT_LIMITS,
} from '../../contract/response-format';

function nested(depth: number, leaf: unknown = 'string'): Record<string, unknown> {
  let node: unknown = leaf;
  for (let i = depth; i >= 1; i -= 1) node = { [`l${i}`]: node };
  return node as Record<string, unknown>;
}

function ajv() {
  const a = new Ajv({ strict: true, allErrors: true, allowUnionTypes: true });
  addFormats(a);
  return a;
}

describe('parseLeaf', () => {
  it.each(LEAF_TYPES.map((t) => [t]))('accepts the type %s', (type) => {
    expect(parseLeaf(type)).toStrictEqual({ type, nullable: false });
    expect(parseLeaf(`${type}?`)).toStrictEqual({ type, nullable: true });
    expect(parseLeaf(`${type} - What it is`)).toStrictEqual({ type, nullable: false, description: 'What it is' });
  });

  it('trims, keeps dashes inside the description, and ignores an empty description', () => {
    expect(parseLeaf('  number?  -  Follower count - approx.  ')).toStrictEqual({
      type: 'number',
      nullable: true,
      description: 'Follower count - approx.',
    });
    expect(parseLeaf('string -')).toStrictEqual({ type: 'string', nullable: false });
    expect(parseLeaf('string - multi\nline')).toStrictEqual({ type: 'string', nullable: false, description: 'multi\nline' });
  });

  it.each([
    ['numbr', /unknown type "numbr"/],
    ['String', /expected "<type>"/],
    ['', /expected "<type>"/],
    ['- description only', /expected "<type>"/],
    ['string?? - x', /expected "<type>"/],
    ['array', /unknown type "array"/],
    ['object', /unknown type "object"/],
    ['int', /unknown type "int"/],
  ])('refuses %j', (leaf, message) => {
    const r = parseLeaf(leaf);
    expect('error' in r && r.error).toMatch(message);
  });
});

describe('checkResponseFormat: valid templates', () => {
  const valid: [string, unknown][] = [
    ['one leaf', { name: 'string' }],
    [
      'every leaf type, nullable or not, with descriptions',
      Object.fromEntries(
        LEAF_TYPES.flatMap((t) => [
          [t, `${t} - a ${t}`],
          [`${t}Maybe`, `${t}?`],
        ]),
      ),
    ],
    ['nested objects', { profile: { name: 'string', stats: { followers: 'integer', ratio: 'number?' } } }],
    ['an array of objects', { posts: [{ title: 'string - Title', postedAt: 'datetime? - When' }] }],
    ['an array of leaves', { tags: ['string'] }],
    ['an array of arrays', { matrix: [['number']] }],
    ['keys with _ $ -', { _id: 'string', $ref: 'string', 'kebab-case': 'string', a1: 'string' }],
    ['exactly the maximum depth (8 nested objects)', nested(RESPONSE_FORMAT_LIMITS.maxDepth)],
    ['the maximum depth through arrays', { a: [{ b: [{ c: [{ d: ['string'] }] }] }] }],
    [
      'exactly the maximum keys per object',
      Object.fromEntries(Array.from({ length: RESPONSE_FORMAT_LIMITS.maxKeysPerObject }, (_, i) => [`k${i}`, 'string'])),
    ],
    [
      'exactly the maximum keys in all',
      Object.fromEntries(
        Array.from({ length: 4 }, (_, i) => [`o${i}`, Object.fromEntries(Array.from({ length: 49 }, (_, j) => [`k${j}`, 'string']))]),
      ),
    ],
    ['a key of maximum length', { ['k'.repeat(RESPONSE_FORMAT_LIMITS.maxKeyLength)]: 'string' }],
    ['a leaf of maximum length', { a: `string - ${'d'.repeat(RESPONSE_FORMAT_LIMITS.maxLeafLength - 9)}` }],
  ];
  it.each(valid)('accepts %s', (_label, template) => {
    expect(checkResponseFormat(template)).toEqual([]);
  });

  it('counts 200 keys in all as the limit (4 × (1 + 49) = 200)', () => {
    const t = Object.fromEntries(
      Array.from({ length: 4 }, (_, i) => [`o${i}`, Object.fromEntries(Array.from({ length: 49 }, (_, j) => [`k${j}`, 'string']))]),
    );
    expect(checkResponseFormat(t)).toEqual([]);
    (t.o3 as Record<string, string>).k49 = 'string';
    expect(checkResponseFormat(t)).toEqual([{ path: ['o3', 'k49'], message: expect.stringMatching(/more than 200 properties/) }]);
  });
});

describe('checkResponseFormat: invalid templates name the exact path', () => {
  const invalid: [string, unknown, (string | number)[], RegExp][] = [
    ['an array at the top', ['string'], [], /must be an object/],
    ['a string at the top', 'string', [], /must be an object/],
    ['null at the top', null, [], /must be an object/],
    ['an empty object', {}, [], /at least one property/],
    ['an empty nested object', { a: { b: {} } }, ['a', 'b'], /at least one property/],
    ['an empty array', { a: [] }, ['a'], /exactly one template element/],
    ['an array of two', { a: ['string', 'number'] }, ['a'], /exactly one template element/],
    ['an unknown type in an array element', { posts: [{ title: 'strng' }] }, ['posts', 0, 'title'], /unknown type "strng"/],
    ['an unknown type in a nested array', { m: [[{ x: 'bool' }]] }, ['m', 0, 0, 'x'], /unknown type "bool"/],
    ['a number leaf', { a: 1 }, ['a'], /got number/],
    ['a boolean leaf', { a: true }, ['a'], /got boolean/],
    ['a null leaf', { a: null }, ['a'], /got null/],
    ['a bad key', { 'bad key': 'string' }, ['bad key'], /property name must match/],
    ['a key starting with a digit', { '1a': 'string' }, ['1a'], /property name must match/],
    [
      'a key too long',
      { ['k'.repeat(RESPONSE_FORMAT_LIMITS.maxKeyLength + 1)]: 'string' },
      ['k'.repeat(RESPONSE_FORMAT_LIMITS.maxKeyLength + 1)],
      /at most 100 characters/,
    ],
    ['a leaf too long', { a: `string - ${'d'.repeat(RESPONSE_FORMAT_LIMITS.maxLeafLength)}` }, ['a'], /at most 500 characters/],
    [
      'one level too deep',
      nested(RESPONSE_FORMAT_LIMITS.maxDepth + 1),
      ['l1', 'l2', 'l3', 'l4', 'l5', 'l6', 'l7', 'l8', 'l9'],
      /deeper than 8/,
    ],
    ['too deep through arrays', { a: [{ b: [{ c: [{ d: [['string']] }] }] }] }, ['a', 0, 'b', 0, 'c', 0, 'd', 0, 0], /deeper than 8/],
    [
      'too many keys in one object',
      Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'string'])),
      [],
      /at most 50 properties/,
    ],
    [
      'over 16 KiB',
      Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, `string - ${'d'.repeat(450)}`])),
      [],
      /at most 16384 bytes/,
    ],
  ];
  it.each(invalid)('refuses %s', (_label, template, path, message) => {
    const issues = checkResponseFormat(template);
    expect(issues).toEqual([{ path, message: expect.stringMatching(message) }]);
  });

  it('reports every issue, in document order', () => {
    expect(checkResponseFormat({ a: 'nope', b: { c: 3 }, d: 'string', e: [] }).map((i) => i.path)).toEqual([['a'], ['b', 'c'], ['e']]);
  });

  it('survives a cyclic or absurdly deep object without throwing', () => {
    const cyclic: Record<string, unknown> = { a: 'string' };
    cyclic.self = cyclic;
    expect(checkResponseFormat(cyclic)).toEqual([{ path: [], message: 'must be plain JSON' }]);
    const deep = checkResponseFormat(nested(20_000));
    expect(deep).toHaveLength(1);
    expect(deep[0].path.length).toBeLessThanOrEqual(RESPONSE_FORMAT_LIMITS.maxDepth + 1);
  });
});

describe('formatPath', () => {
  it('writes paths the way callers write them', () => {
    expect(formatPath('responseFormat', ['posts', 0, 'title'])).toBe('responseFormat.posts[0].title');
    expect(formatPath('responseFormat', [])).toBe('responseFormat');
    expect(formatPath('x', [0, 1, 'a'])).toBe('x[0][1].a');
  });
});

describe('compileResponseFormat', () => {
  it('compiles to a closed JSON Schema with every property required', () => {
    expect(compileResponseFormat({ name: 'string - Full name', n: 'integer?', tags: ['url'], p: { when: 'date' } })).toStrictEqual({
      type: 'object',
      properties: {
        name: { type: 'string', description: 'Full name' },
        n: { type: ['integer', 'null'] },
        tags: { type: 'array', items: { type: 'string', format: 'uri' } },
        p: { type: 'object', properties: { when: { type: 'string', format: 'date' } }, required: ['when'], additionalProperties: false },
      },
      required: ['name', 'n', 'tags', 'p'],
      additionalProperties: false,
    });
  });

  it('refuses to compile an invalid leaf', () => {
    expect(() => compileResponseFormat({ a: 'nope' })).toThrow(/invalid leaf/);
  });

  describe('validated with ajv against sample data', () => {
    const template = {
      name: 'string - Full name',
      followers: 'integer - Follower count',
      score: 'number?',
      verified: 'boolean',
      born: 'date?',
      seenAt: 'datetime',
      homepage: 'url',
      contact: 'email?',
      posts: [{ title: 'string', postedAt: 'datetime? - when', tags: ['string'] }],
      stats: { views: 'integer', ratio: 'number' },
    };
    const good = {
      name: 'Grace Goodwin',
      followers: 1200,
      score: null,
      verified: true,
      born: '1990-05-17',
      seenAt: '2026-01-01T12:00:00Z',
      homepage: 'https://example.com/grace',
      contact: 'grace@example.com',
      posts: [
        { title: 'Hello', postedAt: null, tags: [] },
        { title: 'World', postedAt: '2025-12-31T23:59:59.123+01:00', tags: ['a', 'b'] },
      ],
      stats: { views: 10, ratio: 0.5 },
    };
    const validate = ajv().compile(compileResponseFormat(template));

    it('the template itself is valid', () => {
      expect(checkResponseFormat(template)).toEqual([]);
    });

    it('accepts matching data', () => {
      expect(validate(good)).toBe(true);
      expect(validate({ ...good, posts: [] })).toBe(true);
      expect(validate({ ...good, score: 3.5, born: null, contact: null })).toBe(true);
    });

    const bad: [string, (g: typeof good) => unknown, string][] = [
      ['a missing property', ({ name: _n, ...rest }) => rest, 'required'],
      ['an extra property', (g) => ({ ...g, extra: 1 }), 'additionalProperties'],
      ['an extra nested property', (g) => ({ ...g, stats: { ...g.stats, more: 1 } }), 'additionalProperties'],
      ['a non-integer integer', (g) => ({ ...g, followers: 1.5 }), 'type'],
      ['a string number', (g) => ({ ...g, stats: { ...g.stats, ratio: '0.5' } }), 'type'],
      ['null where not nullable', (g) => ({ ...g, name: null }), 'type'],
      ['a bad date', (g) => ({ ...g, born: '17/05/1990' }), 'format'],
      ['a bad datetime', (g) => ({ ...g, seenAt: 'yesterday' }), 'format'],
      ['a bad url', (g) => ({ ...g, homepage: 'not a url' }), 'format'],
      ['a bad email', (g) => ({ ...g, contact: 'nobody' }), 'format'],
      ['a wrong array item', (g) => ({ ...g, posts: [{ title: 1, postedAt: null, tags: [] }] }), 'type'],
      ['an object instead of an array', (g) => ({ ...g, posts: { title: 'x' } }), 'type'],
    ];
    it.each(bad)('refuses %s', (_label, mutate, keyword) => {
      expect(validate(mutate(good))).toBe(false);
      expect(validate.errors?.map((e) => e.keyword)).toContain(keyword);
    });
  });

  it('compiles every valid template in strict ajv', () => {
    const a = ajv();
    for (const t of [{ a: 'string' }, nested(RESPONSE_FORMAT_LIMITS.maxDepth), { m: [['number?']] }]) {
      expect(() => a.compile(compileResponseFormat(t))).not.toThrow();
    }
  });
});
