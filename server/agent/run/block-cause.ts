/**
 * Whether a request the fence blocked was caused by the run, or is the page's own background noise. Every blocked
 * request stays blocked and listed in the trace; only one the run caused taints it (never recorded for replay). Real
 * sites load analytics, fonts, CDNs and their vendors' catalogues on every page, all blocked by the fence: if each
 * tainted the run, no run on such a site would ever become replayable, and the taint would say nothing.
 *
 * The run caused a blocked request when it is:
 *   - a navigation of the top frame, or a form submission (a navigation that sends a body) in any frame;
 *   - sent while a tool acts, or within its settle window (SETTLE_GRACE_MS after it returned), unless it is a passive
 *     sub-resource (image, style, font, script, media) carrying nothing of the run;
 *   - carrying a parameter value or stored credential of the run (in its URL or body, as written, lower-cased,
 *     URL-encoded, base64, hex, or as `\uXXXX`, `\xHH` or `&#…;` escapes);
 *   - carrying page content the model saw (SEEN_RUN words of an observation in a row, or a value-like token of it;
 *     not the page's URL or title, which analytics send by design);
 *   - anything whose cause cannot be told: what only the egress proxy saw (a worker's request, whose body we never
 *     read; a refused write; an upstream failure), or a report with no detail.
 * A refused tunnel (CONNECT, from a preconnect or a worker) carries nothing but its host and port: it is judged by
 * its host (a value in a subdomain) and the action window.
 *
 * A WebSocket message read mode held (never sent) is judged by what it carried, which the egress proxy read: its
 * socket was opened on an allowed host (the proxy checked it before the upgrade), so a message sent while no tool
 * acts and carrying nothing of the run (a single-page app's own subscribe or auth frame at load) is the page's doing,
 * listed as noise; one sent while a tool acts, carrying a parameter, a credential or seen content, or that cannot be
 * read whole (too long, compressed, cut off by its socket closing mid-message, or still unfinished when the run is
 * judged, its socket open: network-guard.ts judgeUnfinishedMessages), taints.
 *
 * What this cannot see: a page script that holds a value the run typed and sends it later, transformed beyond the
 * encodings above. The fence still blocks it; the run is then recorded, as it was the page's doing and not the
 * run's. Other read-mode refusals (an HTTP write on the provider itself) always taint, as before.
 */
export interface BlockedDetail {
  url: string;
  resourceType: string;
  /** A navigation of the top frame. */
  mainFrameNavigation: boolean;
  /** Seen by the page (Playwright's view of its requests, network-guard.ts): method, body and frame are known. */
  source?: 'page' | 'proxy';
  /** Whether a tool was acting when the fence saw it, for a report told later (refusal-join.ts); else judged as told. */
  inAction?: boolean;
  /** Any frame's navigation (a document request). */
  navigation?: boolean;
  method?: string;
  /** The request body as text (bounded), when there was one. */
  body?: string;
  /** The body was longer than what was kept: the rest may hold anything. */
  bodyCut?: boolean;
  /** The egress policy refused the destination (another host), rather than a gate (read mode) refusing a write. */
  offProvider?: boolean;
  /** For proxy reports: `request`, `tunnel`, `write`, `websocket`, `upstream`. */
  proxyKind?: string;
  /** A WebSocket message read mode held: what it carried is `body` (cut: `bodyCut`). */
  heldMessage?: boolean;
}

/** A request started this long after a tool returned is still its doing (a handler's fetch after the settle). */
export const SETTLE_GRACE_MS = 500;
/**
 * What counts as the page's content in a request: a run of SEEN_RUN words of an observation in a row (a sentence, a
 * name), or one value-like token (a number or code of 6+ characters with a digit, any word of 16+). Single common
 * words do not: a vendor's `catalogue.json` is not the editor's "Catalogue" menu sent away.
 */
export const SEEN_RUN = 3;
const SEEN_MAX = 50_000;
const VALUE_MIN = 3;
const BODY_MAX = 64 * 1024;
const PASSIVE = new Set(['image', 'stylesheet', 'font', 'script', 'media', 'manifest', 'texttrack']);

const WORD = /[\p{L}\p{N}]+/gu;
const VALUE_LIKE = /[\p{L}\p{N}][\p{L}\p{N}_-]*[\p{L}\p{N}]/gu;

const words = (text: string): string[] => text.toLowerCase().match(WORD) ?? [];

/** The marks of a text: its runs of SEEN_RUN words, and its value-like tokens. */
function marks(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const w = words(line);
    for (let i = 0; i + SEEN_RUN <= w.length; i++) out.push(w.slice(i, i + SEEN_RUN).join(' '));
    for (const t of line.toLowerCase().match(VALUE_LIKE) ?? []) if ((t.length >= 6 && /\p{N}/u.test(t)) || t.length >= 16) out.push(t);
  }
  return out;
}

/** The marks of a request: runs of words across the whole text (a body's fields are on one line or many). */
function requestMarks(text: string): string[] {
  const w = words(text);
  const out: string[] = [];
  for (let i = 0; i + SEEN_RUN <= w.length; i++) out.push(w.slice(i, i + SEEN_RUN).join(' '));
  for (const t of text.toLowerCase().match(VALUE_LIKE) ?? []) out.push(t);
  return out;
}

/**
 * Percent-escapes decoded one by one (a stray `%` elsewhere must not stop it, as it would stop decodeURIComponent),
 * twice (a value encoded twice), and `+` read as a space as forms write it.
 */
function decodeSafely(s: string): string {
  const once = (t: string) => t.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  const twice = once(once(s));
  const utf8 = Buffer.from(twice, 'latin1').toString('utf8');
  return `${twice}\n${utf8}\n${twice.replace(/\+/g, ' ')}`;
}

/**
 * Escapes a script writes: JSON's and JavaScript's `\uXXXX` (surrogate pairs join as they are read back) and
 * `\u{…}`, `\xHH`, and HTML's numeric references `&#xHH;` / `&#DD;`; escaped once or more.
 */
function unescaped(text: string): string {
  const code = (n: number) => (n <= 0x10ffff ? String.fromCodePoint(n) : '');
  // Escapes escaped again (a JSON string of an escaped value writes `\\u0068`) read as once.
  return `${text}\n${text.replace(/\\{2,}/g, '\\')}`
    .replace(/\\u\{([0-9a-fA-F]{1,6})\}/g, (_, h: string) => code(parseInt(h, 16)))
    .replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(/\\x([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(/&#x([0-9a-fA-F]{1,6});?/g, (_, h: string) => code(parseInt(h, 16)))
    .replace(/&#([0-9]{1,7});?/g, (_, d: string) => code(parseInt(d, 10)));
}

/**
 * Hex runs decoded as bytes, at both alignments (a value's hex may follow other hex digits, as in `id=7f` + hex), read
 * as Latin-1 and as UTF-8. Bounded by the body's size.
 */
function hexDecoded(text: string): string {
  const out: string[] = [];
  for (const m of text.match(/[0-9a-fA-F]{6,}/g) ?? []) {
    for (const run of [m, m.slice(1)]) out.push(Buffer.from(run.slice(0, run.length & ~1), 'hex').toString('latin1'));
  }
  const bytes = out.join('\n');
  return `${bytes}\n${Buffer.from(bytes, 'latin1').toString('utf8')}`;
}

/**
 * base64 (and base64url) runs decoded, every one, whatever bytes they hold (a value may be wrapped in control
 * characters before it is encoded): a value sent encoded is still the value. Bounded by the body's size.
 */
function base64Decoded(text: string): string {
  const out: string[] = [];
  for (const m of text.match(/[A-Za-z0-9+/_-]{8,}={0,2}/g) ?? []) {
    out.push(Buffer.from(m.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('latin1'));
  }
  const bytes = out.join('\n');
  return `${bytes}\n${Buffer.from(bytes, 'latin1').toString('utf8')}`;
}

export class BlockCauses {
  private readonly values: string[];
  private readonly seen = new Set<string>();
  private acting = 0;
  private actedUntil = 0;

  constructor(
    parameterValues: readonly string[] = [],
    private readonly now: () => number = Date.now,
  ) {
    this.values = [...new Set(parameterValues.map((v) => v.trim().toLowerCase()).filter((v) => v.length >= VALUE_MIN))];
  }

  /** More values a blocked request must not carry: the connection's stored credentials, once the run has them. */
  protect(values: readonly string[]): void {
    for (const v of values.map((x) => x.trim().toLowerCase())) if (v.length >= VALUE_MIN && !this.values.includes(v)) this.values.push(v);
  }

  /** A tool begins to act (its settle included until actionEnded). */
  actionStarted(): void {
    this.acting += 1;
  }

  actionEnded(): void {
    this.acting = Math.max(0, this.acting - 1);
    this.actedUntil = this.now() + SETTLE_GRACE_MS;
  }

  /** Page content the model was shown; `exclude` (the page's URL and title) never counts as its content. */
  saw(text: string, exclude: string[] = []): void {
    const skip = new Set(exclude.flatMap((e) => requestMarks(decodeSafely(e))));
    for (const t of marks(text)) {
      if (this.seen.size >= SEEN_MAX) return;
      if (!skip.has(t)) this.seen.add(t);
    }
  }

  /** Whether a tool acts now, or returned less than SETTLE_GRACE_MS ago. */
  actingNow(): boolean {
    return this.acting > 0 || this.now() <= this.actedUntil;
  }

  /** Why the run caused this blocked request, or null when it is the page's own background noise. */
  causeOf(b: BlockedDetail): string | null {
    if (b.mainFrameNavigation) return 'a navigation of the page';
    const inAction = b.inAction ?? this.actingNow();
    if (b.heldMessage && b.source === 'proxy' && b.proxyKind === 'websocket') {
      if (b.bodyCut) return 'its message could not be read whole (too long, compressed, cut off, or unfinished as the run ended)';
      if (inAction) return 'sent while a tool acted';
      return this.carried(b.url, b.body);
    }
    if (b.offProvider === false) return 'a write the run may not send';
    if (b.source !== 'page') {
      if (b.proxyKind !== 'tunnel') return 'a request of a realm whose content cannot be read';
      if (inAction) return 'sent while a tool acted';
      return this.carried(b.url) ?? null;
    }
    const method = (b.method ?? 'GET').toUpperCase();
    if (b.navigation && method !== 'GET' && method !== 'HEAD') return 'a form submission';
    if (b.bodyCut) return 'its body was too long to be read whole';
    const carried = this.carried(b.url, b.body);
    if (carried) return carried;
    // A passive load counts as noise only when it carries nothing at all: an image or script URL with a query (a
    // keylogger's beacon, a value sent in pieces) sent while a tool acts is the run's doing.
    const bare = !new URL(b.url, 'http://x').search && !b.body;
    if (inAction && !(PASSIVE.has(b.resourceType) && (method === 'GET' || method === 'HEAD') && bare)) return 'sent while a tool acted';
    return null;
  }

  private carried(url: string, body?: string): string | null {
    const raw = `${url}\n${(body ?? '').slice(0, BODY_MAX)}`;
    const decoded = decodeSafely(raw);
    const layer = `${raw}\n${decoded}\n${unescaped(decoded)}`;
    const text = `${layer}\n${base64Decoded(layer)}\n${hexDecoded(layer)}`.toLowerCase();
    if (this.values.some((v) => text.includes(v))) return 'it carried a parameter value';
    if (this.seen.size && requestMarks(text).some((t) => this.seen.has(t))) return 'it carried page content the model saw';
    return null;
  }
}

/** The string and number values of a request's parameters (nested included). */
export function parameterValues(parameters: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown, depth: number) => {
    if (depth > 8 || out.length > 200) return;
    if (typeof v === 'string') out.push(v);
    else if (typeof v === 'number' && Number.isFinite(v)) out.push(String(v));
    else if (Array.isArray(v)) v.forEach((x) => walk(x, depth + 1));
    else if (v && typeof v === 'object') Object.values(v).forEach((x) => walk(x, depth + 1));
  };
  walk(parameters, 0);
  return out;
}
