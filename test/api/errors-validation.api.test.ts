import { describeEachStore } from '../support/app';
import { agentRequestBody, type Connected, post, sandboxHeaders, type TestOrg } from '../support/helpers';
import { errorEnvelope, errorsOrg } from './errors-support';

/**
 * The error envelope (see errors.api.test.ts), this file: INVALID_FIELD for body values of a wrong shape, type or
 * size (not an object, a wrong type, strings PostgreSQL cannot store, a bad responseFormat, oversized or too deeply
 * nested parameters), each with its exact path.
 */
describeEachStore('error envelope', (t) => {
  const { expectError, raw } = errorEnvelope(t);

  let org: TestOrg;
  let conn: Connected;
  beforeAll(async () => {
    ({ org, conn } = await errorsOrg(t));
  });

  describe('body validation', () => {
    it('INVALID_FIELD for a body that is not an object', async () => {
      for (const [body, got] of [
        ['[1,2]', 'array'],
        ['"text"', 'string'],
        ['42', 'number'],
        ['null', 'null'],
      ]) {
        expectError(
          await raw('post', '/api/link-token', { ...sandboxHeaders(org), 'content-type': 'application/json' }).send(body),
          'INVALID_FIELD',
          {
            message: `body: expected a JSON object, got ${got}`,
            details: [{ path: 'body', message: `expected a JSON object, got ${got}` }],
          },
        );
      }
      expectError(await raw('post', '/api/link-token', sandboxHeaders(org)), 'INVALID_FIELD', {
        message: 'body: expected a JSON object, got undefined',
        details: [{ path: 'body', message: 'expected a JSON object, got undefined' }],
      });
    });

    it('INVALID_FIELD for a wrong type, naming the path', async () => {
      expectError(await post(t, '/api/link-token', sandboxHeaders(org), { clientUserId: 42 }), 'INVALID_FIELD', {
        message: 'clientUserId: Expected string, received number',
        details: [{ path: 'clientUserId', message: 'Expected string, received number' }],
      });
      expectError(
        await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, conn.accessToken, { parameters: [1] })),
        'INVALID_FIELD',
        {
          message: 'parameters: Expected object, received array',
          details: [{ path: 'parameters', message: 'Expected object, received array' }],
        },
      );
    });

    it('INVALID_FIELD for strings PostgreSQL cannot store (U+0000, unpaired surrogates), with the path', async () => {
      expectError(await post(t, '/api/link-token', sandboxHeaders(org), { clientUserId: 'a\u0000b' }), 'INVALID_FIELD', {
        message: 'clientUserId: must not contain U+0000 or unpaired UTF-16 surrogates',
        details: [{ path: 'clientUserId', message: 'must not contain U+0000 or unpaired UTF-16 surrogates' }],
      });
      expectError(
        await post(
          t,
          '/api/agent-requests',
          sandboxHeaders(org),
          agentRequestBody(t, conn.accessToken, { parameters: { list: ['ok', 'bad\ud800'] } }),
        ),
        'INVALID_FIELD',
        { details: [{ path: 'parameters.list[1]', message: expect.any(String) }] },
      );
      // A proper surrogate pair (an emoji) is fine.
      expect((await post(t, '/api/link-token', sandboxHeaders(org), { clientUserId: 'emoji 😀' })).status).toBe(200);
    });

    describe('responseFormat (INVALID_FIELD with the exact path)', () => {
      const cases: [string, unknown, string, RegExp][] = [
        [
          'an unknown leaf type in an array element',
          { posts: [{ title: 'strng - Title' }] },
          'responseFormat.posts[0].title',
          /unknown type "strng"/,
        ],
        ['a non-string leaf', { profile: { followers: 42 } }, 'responseFormat.profile.followers', /got number/],
        ['a null leaf', { a: null }, 'responseFormat.a', /got null/],
        ['an empty template', {}, 'responseFormat', /at least one property/],
        ['an empty nested object', { a: {} }, 'responseFormat.a', /at least one property/],
        ['an array of two', { tags: ['string', 'string'] }, 'responseFormat.tags', /exactly one/],
        ['an empty array', { tags: [] }, 'responseFormat.tags', /exactly one/],
        ['a bad property name', { 'has space': 'string' }, 'responseFormat.has space', /property name/],
        ['a descriptor without type', { a: ' - no type' }, 'responseFormat.a', /expected "<type>"/],
        [
          'too deep',
          { a: { b: { c: { d: { e: { f: { g: { h: { i: 'string' } } } } } } } } },
          'responseFormat.a.b.c.d.e.f.g.h.i',
          /deeper than 8/,
        ],
      ];
      it.each(cases)('refuses %s', async (_label, responseFormat, path, message) => {
        const res = await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, conn.accessToken, { responseFormat }));
        const err = expectError(res, 'INVALID_FIELD', { details: [{ path, message: expect.stringMatching(message) }] });
        expect(err.message.startsWith(`${path}: `)).toBe(true);
      });

      it('lists every bad path', async () => {
        const res = await post(
          t,
          '/api/agent-requests',
          sandboxHeaders(org),
          agentRequestBody(t, conn.accessToken, {
            responseFormat: { a: 'strin', b: [{ c: 1 }], d: 'number - fine' },
          }),
        );
        const err = expectError(res, 'INVALID_FIELD', { details: expect.any(Array) });
        expect((err.details as { path: string }[]).map((d) => d.path)).toEqual(['responseFormat.a', 'responseFormat.b[0].c']);
      });

      it('refuses a responseFormat that is not an object', async () => {
        for (const responseFormat of ['string', ['string'], 3]) {
          expectError(
            await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, conn.accessToken, { responseFormat })),
            'INVALID_FIELD',
            {
              details: [{ path: 'responseFormat', message: expect.any(String) }],
            },
          );
        }
      });

      it('refuses a responseFormat over 16 KiB', async () => {
        const responseFormat = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, `string - ${'d'.repeat(450)}`]));
        expectError(
          await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, conn.accessToken, { responseFormat })),
          'INVALID_FIELD',
          {
            details: [{ path: 'responseFormat', message: expect.stringMatching(/at most 16384 bytes/) }],
          },
        );
      });
    });

    it('INVALID_FIELD for parameters over 64 KiB or nested too deep', async () => {
      const big = { blob: 'x'.repeat(64 * 1024) };
      expectError(
        await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, conn.accessToken, { parameters: big })),
        'INVALID_FIELD',
        {
          message: /^parameters: must be at most 65536 bytes as JSON \(got 655\d\d\)$/,
          details: [{ path: 'parameters', message: expect.stringMatching(/^must be at most 65536 bytes/) }],
        },
      );
      let deep: Record<string, unknown> = { leaf: 1 };
      for (let i = 0; i < 10; i += 1) deep = { n: deep };
      expectError(
        await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, conn.accessToken, { parameters: deep })),
        'INVALID_FIELD',
        {
          message: 'parameters: must be nested at most 10 levels deep',
          details: [{ path: 'parameters', message: 'must be nested at most 10 levels deep' }],
        },
      );
      // A hostile nesting depth is a 400 too, not a stack overflow: the body guard refuses it (under the top-level
      // field that holds it) before validation or the idempotency fingerprint walk the body.
      const base = JSON.stringify(agentRequestBody(t, conn.accessToken));
      const hostile = base.replace('"parameters":{', `"parameters":{"x":${'['.repeat(50_000)}${']'.repeat(50_000)},`);
      expectError(
        await raw('post', '/api/agent-requests', { ...sandboxHeaders(org), 'content-type': 'application/json' }).send(hostile),
        'INVALID_FIELD',
        {
          message: 'parameters: must be nested at most 64 levels deep',
          details: [{ path: 'parameters', message: 'must be nested at most 64 levels deep' }],
        },
      );
    });
  });
});
