import type { Caller } from '../domain/context';

/**
 * The MCP sessions of this process, for clients that can be asked (elicitation): asking needs the client's answer to
 * reach the very server that asked, so these clients get a session (Mcp-Session-Id) whose later POSTs come back to it.
 * Every other client stays stateless. A session belongs to the caller that opened it: another organization or
 * environment naming its id finds nothing. Bounded in count and idle time; one process holds its sessions (a
 * multi-process deployment routes /mcp by that header, or clients start again on 404, as the protocol says).
 */
export interface McpSessionEntry {
  ownerKey: string;
  close(): Promise<void>;
}

interface Held<T extends McpSessionEntry> {
  entry: T;
  timer: NodeJS.Timeout;
}

export const MCP_SESSIONS_MAX = 200;
/** One caller's share: its own oldest session closes first, so one organization cannot push out the others'. */
export const MCP_SESSIONS_PER_OWNER_MAX = 20;
export const MCP_SESSION_IDLE_MS = 15 * 60_000;

export const ownerKeyOf = (caller: Caller) => `${caller.organizationId}:${caller.environment}`;

export class McpSessions<T extends McpSessionEntry> {
  private readonly held = new Map<string, Held<T>>();

  constructor(
    private readonly max = MCP_SESSIONS_MAX,
    private readonly idleMs = MCP_SESSION_IDLE_MS,
    private readonly perOwnerMax = MCP_SESSIONS_PER_OWNER_MAX,
  ) {}

  get size(): number {
    return this.held.size;
  }

  /**
   * Room for one more session of `caller`: when it holds its share, its own longest idle session closes; else, when the
   * process is full, the longest idle of all.
   */
  makeRoom(caller: Caller): void {
    const owner = ownerKeyOf(caller);
    const own = [...this.held].filter(([, h]) => h.entry.ownerKey === owner);
    if (own.length >= this.perOwnerMax) return this.drop(own[0]![0]);
    if (this.held.size < this.max) return;
    const oldest = this.held.keys().next().value;
    if (oldest !== undefined) this.drop(oldest);
  }

  /** How many sessions `caller` holds. */
  countOf(caller: Caller): number {
    const owner = ownerKeyOf(caller);
    return [...this.held.values()].filter((h) => h.entry.ownerKey === owner).length;
  }

  add(id: string, entry: T): void {
    this.held.set(id, { entry, timer: this.idleTimer(id) });
  }

  /** The session `id` of `caller`, its idle time restarted; null when there is none for this caller. */
  find(id: string, caller: Caller): T | null {
    const held = this.held.get(id);
    if (!held || held.entry.ownerKey !== ownerKeyOf(caller)) return null;
    clearTimeout(held.timer);
    // Re-inserted: the map's order is the order of last use, so makeRoom closes the longest idle.
    this.held.delete(id);
    this.held.set(id, { entry: held.entry, timer: this.idleTimer(id) });
    return held.entry;
  }

  /** Forgets a session that ended (its transport closed). */
  forget(id: string): void {
    const held = this.held.get(id);
    if (!held) return;
    clearTimeout(held.timer);
    this.held.delete(id);
  }

  closeAll(): void {
    for (const id of [...this.held.keys()]) this.drop(id);
  }

  private drop(id: string): void {
    const held = this.held.get(id);
    if (!held) return;
    this.forget(id);
    void held.entry.close().catch(() => undefined);
  }

  private idleTimer(id: string): NodeJS.Timeout {
    const timer = setTimeout(() => this.drop(id), this.idleMs);
    timer.unref();
    return timer;
  }
}
