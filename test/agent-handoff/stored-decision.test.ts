import type { UserAction } from '../../contract/schemas';
import type { UserDecision } from '../../server/agent/handoff/run-handoff';
import { applyStoredDecision, askKey, encodeDecision, parseDecision } from '../../server/agent/handoff/stored-decision';

/**
 * A decision stored by another process reaches the run only if it answers the very ask the run waits on, as that ask
 * asks (approve/deny a held write, the write named; done on a step): anything else in the column is not applied.
 */
const ask = (linkToken: string, reason: UserAction['reason'], writeId: string | null): UserAction =>
  ({
    reason,
    message: 'm',
    since: '2026-11-28T00:00:00.000Z',
    expiresAt: '2026-11-28T00:10:00.000Z',
    linkToken,
    url: 'http://x/link',
    write: writeId
      ? { id: writeId, method: 'POST', url: 'http://orbit/p', host: 'orbit', path: '/p', contentType: null, body: null, truncated: false }
      : null,
  }) as unknown as UserAction;

function run(current: UserAction | null) {
  const decided: UserDecision[] = [];
  return { current, decided, decide: (d: UserDecision) => (decided.push(d), true) };
}

it('applies a decision on the open ask, and nothing else the column may hold', () => {
  const held = ask('link-sandbox-aaa', 'APPROVAL', 'hw_1');
  const key = askKey(held);
  const r = run(held);
  for (const raw of [
    '',
    'null',
    '{',
    '{"decision":"approve"}',
    JSON.stringify({ decision: 'sudo', ask: key, writeId: null }),
    'x'.repeat(2000),
  ]) {
    expect(parseDecision(raw)).toBeNull();
    expect(applyStoredDecision(r, raw)).toBe(false);
  }
  // Another pause's decision, a write no longer held, an answer the ask does not take: not applied.
  expect(
    applyStoredDecision(r, encodeDecision({ decision: 'approve', ask: askKey(ask('link-old', 'APPROVAL', 'hw_1')), writeId: null })),
  ).toBe(false);
  expect(applyStoredDecision(r, encodeDecision({ decision: 'approve', ask: key, writeId: 'hw_0' }))).toBe(false);
  expect(applyStoredDecision(r, encodeDecision({ decision: 'done', ask: key, writeId: null }))).toBe(false);
  expect(applyStoredDecision(run(null), encodeDecision({ decision: 'approve', ask: key, writeId: null }))).toBe(false);
  expect(r.decided).toEqual([]);
  expect(applyStoredDecision(r, encodeDecision({ decision: 'approve', ask: key, writeId: 'hw_1' }))).toBe(true);
  expect(r.decided).toEqual(['approve']);
  // A step on the page takes done or exit, never approve.
  const step = run(ask('link-sandbox-bbb', 'CODE', null));
  expect(applyStoredDecision(step, encodeDecision({ decision: 'deny', ask: askKey(step.current!), writeId: null }))).toBe(false);
  expect(applyStoredDecision(step, encodeDecision({ decision: 'exit', ask: askKey(step.current!), writeId: null }))).toBe(true);
});
