import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenAI-compatible Chat Completions server on 127.0.0.1 for tests: the only thing the agent tests mock
 * (browser-use's scripted model). It speaks the real protocol (POST /v1/chat/completions with tools →
 * tool_calls, usage), and a script decides each answer by READING the observation it was sent: it finds
 * "[12] button 'Post'" in the page view and answers with that index, so it works on the real pages.
 * It can also answer HTTP errors, malformed bodies, or wait before answering: a while, or until something happened.
 */
export interface ObservedLine {
  index: number;
  role: string;
  name: string;
  /** What follows the name: value=…, states. */
  rest: string;
  line: string;
  /** 0-based line number in the page view (reading order). */
  lineNo: number;
}

/** A tab of the run, from the observation's "Tabs: [1] 'Title' url, [2] current 'Title' url (new)" line. */
export interface ObservedTab {
  id: number;
  title: string;
  url: string;
  current: boolean;
}

export interface ParsedObservation {
  url: string;
  text: string;
  elements: ObservedLine[];
  /** The run's tabs, when the observation lists them (more than one tab open); empty otherwise. */
  tabs: ObservedTab[];
  /** Index of the one element with this role whose name equals (string) or matches (RegExp); throws when absent. */
  find(role: string, name: string | RegExp): number;
  /** Like find, but undefined when absent. */
  maybe(role: string, name: string | RegExp): ObservedLine | undefined;
  has(text: string | RegExp): boolean;
}

export interface ScriptTurn {
  /** 1-based number of this request on the server. */
  call: number;
  body: Record<string, unknown>;
  messages: { role: string; content?: string | null; tool_calls?: { function: { name: string; arguments: string } }[] }[];
  toolNames: string[];
  toolChoice: unknown;
  /** Text of the last user message (an observation with feedback, or the repair prompt). */
  lastUser: string;
  /** The page view in the last user message, when there is one. */
  observation: ParsedObservation | null;
  /** What the tools answered to the previous assistant turn (tool messages after it), or null. */
  lastToolResult: string | null;
  /** Tool calls the assistant made earlier in this conversation. */
  history: { name: string; args: Record<string, unknown> }[];
}

export type ScriptReply =
  | { tool: string; args: Record<string, unknown> }
  | { content: string }
  | { status: number; body?: string }
  | { raw: string }
  | { delayMs: number; then: ScriptReply }
  /**
   * Answers `then` once `until()` holds (polled every 25 ms): a model still thinking while the page does what the test
   * waits for (a timer of its own, a request), however long a loaded machine takes. After `maxMs` (30 s by default) it
   * answers anyway, and the test's own assertions say what did not happen.
   */
  | { until: () => boolean | Promise<boolean>; maxMs?: number; then: ScriptReply };

export type Script = (turn: ScriptTurn) => ScriptReply;

export interface ScriptedModelServer {
  /** Base URL as AGENTLINK_MODEL_BASE_URL takes it: http://127.0.0.1:<port>/v1 */
  baseUrl: string;
  readonly calls: number;
  /** Every request body as received (for checking what the model was shown). */
  readonly bodies: string[];
  readonly authorizations: (string | undefined)[];
  setScript(script: Script): void;
  close(): Promise<void>;
}

/** "[12] button 'Post' disabled", optionally inside a heading: "### [14] link 'openfoundry/atlas'". */
const ELEMENT_LINE = /^(?:#{1,6} )?\[(\d+)\] (\S+) '((?:[^'\\]|\\.)*)'(.*)$/;

/** One tab of a "Tabs:" line: "[2] current 'Q3 report' http://host/reports/q3 (new)". */
const TAB_ENTRY = /\[(\d+)\]( current)? '((?:[^'\\]|\\.)*)' (\S+?)(?: \(new\))?(?=, \[\d+\]|$)/g;

const unquote = (s: string) => s.replace(/\\(.)/g, '$1');

/** The page block of a step prompt: between the opening and closing line with the run's random boundary. */
const PAGE_BLOCK = /^<untrusted_page_content boundary="([0-9a-f]+)">\n([\s\S]*?)\n<\/untrusted_page_content boundary="\1">$/m;

export function parseObservation(text: string): ParsedObservation | null {
  const block = PAGE_BLOCK.exec(text);
  if (!block) return null;
  const view = block[2]!;
  const url = /^URL: (.*)$/m.exec(view)?.[1] ?? '';
  const elements: ObservedLine[] = [];
  const tabs: ObservedTab[] = [];
  view.split('\n').forEach((line, lineNo) => {
    const m = ELEMENT_LINE.exec(line);
    if (m) elements.push({ index: Number(m[1]), role: m[2]!, name: unquote(m[3]!), rest: m[4]!.trim(), line, lineNo });
    if (line.startsWith('Tabs: ')) {
      for (const t of line.matchAll(TAB_ENTRY)) tabs.push({ id: Number(t[1]), current: !!t[2], title: unquote(t[3]!), url: t[4]! });
    }
  });
  const matches = (e: ObservedLine, role: string, name: string | RegExp) =>
    e.role === role && (typeof name === 'string' ? e.name === name : name.test(e.name));
  return {
    url,
    text: view,
    elements,
    tabs,
    maybe: (role, name) => elements.find((e) => matches(e, role, name)),
    find(role, name) {
      const hit = elements.filter((e) => matches(e, role, name));
      if (hit.length !== 1) throw new Error(`scripted model: ${hit.length} elements ${role} ${String(name)} in\n${view.slice(0, 3000)}`);
      return hit[0]!.index;
    },
    has: (t) => (typeof t === 'string' ? view.includes(t) : t.test(view)),
  };
}

export async function startScriptedModelServer(initial?: Script): Promise<ScriptedModelServer> {
  let script: Script = initial ?? (() => ({ content: 'no script' }));
  let calls = 0;
  const bodies: string[] = [];
  const authorizations: (string | undefined)[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const reply = async (res: http.ServerResponse, r: ScriptReply, body: Record<string, unknown>, promptChars: number): Promise<void> => {
    if ('until' in r) {
      let closed = false;
      const onClose = () => (closed = true);
      res.once('close', onClose);
      const end = Date.now() + (r.maxMs ?? 30_000);
      while (
        !closed &&
        Date.now() < end &&
        !(await Promise.resolve()
          .then(r.until)
          .catch(() => false))
      ) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            timers.delete(timer);
            resolve();
          }, 25);
          timers.add(timer);
        });
      }
      res.off('close', onClose);
      if (closed || res.destroyed || res.writableEnded) return;
      return reply(res, r.then, body, promptChars);
    }
    if ('delayMs' in r) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          resolve();
        }, r.delayMs);
        timers.add(timer);
        res.on('close', () => {
          clearTimeout(timer);
          timers.delete(timer);
          resolve();
        });
      });
      if (res.destroyed || res.writableEnded) return;
      return reply(res, r.then, body, promptChars);
    }
    if ('status' in r) {
      res.writeHead(r.status, { 'content-type': 'application/json' });
      res.end(r.body ?? JSON.stringify({ error: { message: 'scripted failure', type: 'server_error' } }));
      return;
    }
    if ('raw' in r) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(r.raw);
      return;
    }
    const message =
      'tool' in r
        ? {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: `call_${calls}`, type: 'function', function: { name: r.tool, arguments: JSON.stringify(r.args) } }],
          }
        : { role: 'assistant', content: r.content };
    const completion = JSON.stringify(message).length;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: `chatcmpl-${calls}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: String(body.model ?? 'scripted'),
        choices: [{ index: 0, message, finish_reason: 'tool' in r ? 'tool_calls' : 'stop' }],
        usage: {
          prompt_tokens: Math.ceil(promptChars / 4),
          completion_tokens: Math.ceil(completion / 4),
          total_tokens: Math.ceil((promptChars + completion) / 4),
        },
      }),
    );
  };

  const server = http.createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      calls += 1;
      bodies.push(raw);
      authorizations.push(req.headers.authorization);
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'body is not JSON' } }));
        return;
      }
      const messages = (body.messages ?? []) as ScriptTurn['messages'];
      const lastUser = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
      const lastAssistant = messages.map((m) => m.role).lastIndexOf('assistant');
      const toolResults = messages.slice(lastAssistant + 1).filter((m) => m.role === 'tool');
      const history = messages
        .filter((m) => m.role === 'assistant')
        .flatMap((m) => m.tool_calls ?? [])
        .map((tc) => ({ name: tc.function.name, args: JSON.parse(tc.function.arguments || '{}') as Record<string, unknown> }));
      const turn: ScriptTurn = {
        call: calls,
        body,
        messages,
        toolNames: ((body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name),
        toolChoice: body.tool_choice,
        lastUser,
        observation: parseObservation(lastUser),
        lastToolResult: lastAssistant >= 0 && toolResults.length ? toolResults.map((m) => m.content ?? '').join('\n') : null,
        history,
      };
      let r: ScriptReply;
      try {
        r = script(turn);
      } catch (err) {
        r = { status: 599, body: JSON.stringify({ error: { message: `script error: ${(err as Error).message}` } }) };
      }
      void reply(res, r, body, raw.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    get calls() {
      return calls;
    },
    bodies,
    authorizations,
    setScript(s) {
      script = s;
    },
    close: async () => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
