import { McpSessions } from '../../server/mcp/mcp-sessions';

/**
 * The MCP sessions of a process: found only by their own caller, bounded in all and per caller (one organization's
 * sessions never push out another's while it stays within its share), closed when idle.
 */
const caller = (organizationId: string) => ({ organizationId, environment: 'sandbox' as const });

function session(owner: string, closed: string[], id: string) {
  return {
    ownerKey: `${owner}:sandbox`,
    close: async () => {
      closed.push(id);
    },
  };
}

it('finds a session only for the caller that opened it', () => {
  const sessions = new McpSessions(10, 60_000, 5);
  sessions.add('s1', session('org_a', [], 's1'));
  expect(sessions.find('s1', caller('org_a'))).not.toBeNull();
  expect(sessions.find('s1', caller('org_b'))).toBeNull();
  expect(sessions.find('s1', { organizationId: 'org_a', environment: 'production' })).toBeNull();
  expect(sessions.find('nope', caller('org_a'))).toBeNull();
  sessions.closeAll();
});

it("a caller at its share closes its own longest idle session, never another caller's", () => {
  const closed: string[] = [];
  const sessions = new McpSessions(10, 60_000, 3);
  sessions.add('b1', session('org_b', closed, 'b1'));
  for (const id of ['a1', 'a2', 'a3']) {
    sessions.makeRoom(caller('org_a'));
    sessions.add(id, session('org_a', closed, id));
  }
  sessions.find('a1', caller('org_a')); // used again: a2 is now the longest idle of org_a
  sessions.makeRoom(caller('org_a'));
  expect(closed).toEqual(['a2']);
  expect(sessions.countOf(caller('org_a'))).toBe(2);
  expect(sessions.find('b1', caller('org_b'))).not.toBeNull();
  sessions.closeAll();
});

it('a full process closes the longest idle session of all; an idle session closes by itself', async () => {
  const closed: string[] = [];
  const sessions = new McpSessions(2, 50, 5);
  sessions.add('a1', session('org_a', closed, 'a1'));
  sessions.add('b1', session('org_b', closed, 'b1'));
  sessions.makeRoom(caller('org_c'));
  expect(closed).toEqual(['a1']);
  await new Promise((r) => setTimeout(r, 120));
  expect(closed).toEqual(['a1', 'b1']);
  expect(sessions.size).toBe(0);
});
