import type { ObservedLine, ParsedObservation, Script, ScriptReply, ScriptTurn } from '../support/scripted-model-server';
import { type ParsedStep, parseSteps, readKeys } from './steps';

/**
 * The stand-in model of the corpus: it follows a task's person-phrased steps (./steps.ts) and picks what to act on
 * ONLY from the observation text it is sent — element lines "[N] role 'name' …", the "Tabs:" line, page text — by
 * matching the names a person would read, the way a person scans a page for a label. It never looks at the DOM and
 * knows no index in advance. What it cannot find it looks for as a person would (wait a moment, read on with the
 * read/extract tool, scroll), then gives up with the reason (`fail`), which is what a task's failure reports.
 *
 * It uses the tools the planner offers and adapts to their parameters as declared (a tab by number or title, an
 * extract that pages with an offset), so the same tasks measure the agent as its tools grow.
 */
type Tool = { function: { name: string; parameters?: { properties?: Record<string, { type?: string }>; required?: string[] } } };

type Pending = { kind: 'act'; repeat: boolean } | { kind: 'look' } | { kind: 'read'; tool: string; offset: number; page: number };

interface Effort {
  waited: boolean;
  scrolls: number;
  reads: number;
  retried: boolean;
  repeats: number;
}

const MAX_SCROLLS = 2;
const MAX_READ_PAGES = 8;
const MAX_REPEATS = 10;
/** Lines after an anchor that still count as "near" it (a card, a form row, a table row and the next). */
const NEAR_LINES = 14;
/** Roles one cannot type into. */
const NOT_TYPEABLE = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'option', 'tab', 'menuitem', 'img', 'heading']);

const norm = (s: string) => s.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** `label` inside `text` as whole words (case-insensitive). */
const containsWords = (text: string, label: string) =>
  new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRe(norm(label))}(?=$|[^\\p{L}\\p{N}])`, 'u').test(norm(text));
const startsWithWords = (text: string, label: string) => new RegExp(`^${escapeRe(norm(label))}(?=$|[^\\p{L}\\p{N}])`, 'u').test(norm(text));

/** The page view as lines a person reads: an element line as its name and what follows it, a heading without its marks. */
function readableLines(o: ParsedObservation): string[] {
  const lines = o.text.split('\n').map((l) => l.replace(/^#{1,6} /, ''));
  for (const e of o.elements) lines[e.lineNo] = `${e.name}${e.rest ? ` ${e.rest}` : ''}`;
  return lines;
}

/** What a closed combobox shows in its box (a person reads it there, as on a button). */
const shownValue = (e: ObservedLine) => (e.role === 'combobox' ? /(?:^| )value='((?:[^'\\]|\\.)*)'/.exec(e.rest)?.[1] : undefined);

/** Elements named `label`: exactly, else starting with it, else containing it (each as whole words); else a combobox showing it. */
function named(elements: ObservedLine[], label: string): ObservedLine[] {
  const tests = [(n: string) => norm(n) === norm(label), (n: string) => startsWithWords(n, label), (n: string) => containsWords(n, label)];
  for (const t of tests) {
    const hits = elements.filter((e) => t(e.name));
    if (hits.length) return hits;
  }
  return elements.filter((e) => norm(shownValue(e)?.replace(/\\(.)/g, '$1') ?? '') === norm(label));
}

/** The line a person would take for `label`: a line that is exactly it, else a heading holding it, else any line holding it. */
function anchorLine(o: ParsedObservation, lines: string[], label: string): number {
  const raw = o.text.split('\n');
  const exact = lines.findIndex((l) => norm(l) === norm(label));
  if (exact >= 0) return exact;
  const heading = raw.findIndex((l, i) => /^#{1,6} /.test(l) && containsWords(lines[i]!, label));
  if (heading >= 0) return heading;
  return lines.findIndex((l) => containsWords(l, label));
}

function firstMatch(text: string, pattern: RegExp): string | null {
  const m = pattern.exec(text);
  return m ? (m[1] ?? m[0]).trim() : null;
}

/** Reads `pattern` near `near` (or anywhere) in some lines of page text. */
function readIn(lines: string[], pattern: RegExp, near: string | undefined, anchor: (label: string) => number): string | null {
  if (!near) return firstMatch(lines.join('\n'), pattern);
  const a = anchor(near);
  return a < 0 ? null : firstMatch(lines.slice(a, a + NEAR_LINES).join('\n'), pattern);
}

/** The page text a read/extract tool quoted (inside its untrusted block). */
function quotedText(toolResult: string | null): string | null {
  const m = /<untrusted_page_content boundary="([0-9a-f]+)">\n([\s\S]*?)\n<\/untrusted_page_content boundary="\1">/.exec(toolResult ?? '');
  return m ? m[2]! : null;
}

export class LabelPicker {
  /** What the model saw and decided, turn by turn (printed when a task fails). */
  readonly log: string[] = [];
  private readonly steps: ParsedStep[];
  private i = 0;
  private pending: Pending | null = null;
  private effort: Effort = { waited: false, scrolls: 0, reads: 0, retried: false, repeats: 0 };
  private readonly values: Record<string, string> = {};
  private readonly keys: string[];

  constructor(steps: readonly string[]) {
    this.steps = parseSteps(steps);
    this.keys = readKeys(this.steps);
  }

  readonly script: Script = (turn) => {
    const reply = this.turn(turn);
    const what = 'tool' in reply ? `${reply.tool} ${JSON.stringify(reply.args)}` : JSON.stringify(reply);
    this.log.push(`step ${this.i + 1}/${this.steps.length} ${JSON.stringify(this.step?.said ?? '')}: ${what}`);
    return reply;
  };

  private get step(): ParsedStep | undefined {
    return this.steps[this.i];
  }

  private advance() {
    this.i += 1;
    this.effort = { waited: false, scrolls: 0, reads: 0, retried: false, repeats: 0 };
  }

  private turn(turn: ScriptTurn): ScriptReply {
    const o = turn.observation;
    // The repair turn after a rejected done (no page view, done forced): the same values again.
    if (!o) return this.done();
    const failed = /^Your previous turn failed: (.*)$/m.exec(turn.lastUser)?.[1];
    const pending = this.pending;
    this.pending = null;
    if (pending && failed) {
      if (this.effort.retried) return this.giveUp(`"${this.step!.said}" failed twice: ${failed}`);
      this.effort.retried = true;
    } else if (pending?.kind === 'act' && !pending.repeat) this.advance();
    else if (pending?.kind === 'read') {
      const r = this.afterRead(turn, pending);
      if (r) return r;
    }
    return this.plan(turn, o);
  }

  private plan(turn: ScriptTurn, o: ParsedObservation): ScriptReply {
    const lines = readableLines(o);
    const anchor = (label: string) => anchorLine(o, lines, label);
    for (;;) {
      const step = this.step;
      if (!step || step.kind === 'done') return this.done();
      if (step.kind === 'read') {
        const v = readIn(lines, step.pattern, step.near, anchor);
        if (v !== null) {
          this.values[step.key] = v;
          this.advance();
          continue;
        }
        return this.search(turn, `nothing like ${step.pattern} ${step.near ? `near '${step.near}' ` : ''}in the observation`, true);
      }
      if (step.kind === 'read_value') {
        const e = this.pick(o, lines, step.label, undefined, (x) => !NOT_TYPEABLE.has(x.role));
        const v = e ? /(?:^| )value='((?:[^'\\]|\\.)*)'/.exec(e.rest)?.[1] : undefined;
        if (v !== undefined && v !== '') {
          this.values[step.key] = v.replace(/\\(.)/g, '$1');
          this.advance();
          continue;
        }
        return this.search(
          turn,
          e ? `the observation shows no value for '${step.label}'` : `no field '${step.label}' in the observation`,
          false,
        );
      }
      if (step.kind === 'expand') return this.expand(turn, o, lines, step);
      if (step.kind === 'click' && step.until && anchor(step.until) >= 0) {
        this.advance();
        continue;
      }
      return this.act(turn, o, lines, step);
    }
  }

  private act(turn: ScriptTurn, o: ParsedObservation, lines: string[], step: ParsedStep): ScriptReply {
    const has = (tool: string) => turn.toolNames.includes(tool);
    const need = (tool: string) => (has(tool) ? null : this.giveUp(`"${step.said}" needs a ${tool} tool, and the agent has none`));
    switch (step.kind) {
      case 'press':
        return need('press') ?? this.call('press', { key: step.key });
      case 'switch_tab': {
        const missing = need('switch_tab');
        if (missing) return missing;
        const tab = this.pickTab(o, step.title);
        if (!tab) return this.search(turn, `no tab '${step.title}' in the observation`, false, false);
        return this.call('switch_tab', this.tabArgs(turn, 'switch_tab', tab.id, tab.title));
      }
      case 'close_tab': {
        const missing = need('close_tab');
        if (missing) return missing;
        const current = o.tabs.find((t) => t.current);
        return this.call('close_tab', current ? this.tabArgs(turn, 'close_tab', current.id, current.title, true) : {});
      }
      case 'hover':
      case 'click':
      case 'type':
      case 'select': {
        const tool = step.kind;
        const missing = need(tool);
        if (missing) return missing;
        const typeable = (e: ObservedLine) => !NOT_TYPEABLE.has(e.role);
        const filter = tool === 'type' || tool === 'select' ? typeable : undefined;
        const e = this.pick(o, lines, step.label, 'within' in step ? step.within : undefined, filter);
        if (!e) {
          const where = 'within' in step && step.within ? ` in '${step.within}'` : '';
          const asText = lines.some((l, n) => !o.elements.some((x) => x.lineNo === n) && containsWords(l, step.label));
          const why = asText
            ? `'${step.label}'${where} is in the page text but not listed as something to operate`
            : `cannot find '${step.label}'${where}`;
          return this.search(turn, why, false);
        }
        if (tool === 'click' && step.kind === 'click' && step.until) {
          if (++this.effort.repeats > MAX_REPEATS)
            return this.giveUp(`clicked '${step.label}' ${MAX_REPEATS} times and '${step.until}' never showed`);
          return this.call('click', { index: e.index }, true);
        }
        if (step.kind === 'type') return this.call('type', { index: e.index, text: step.text });
        if (step.kind === 'select') return this.call('select', { index: e.index, option: step.option });
        return this.call(tool, { index: e.index });
      }
      default:
        throw new Error(`unhandled step ${step.said}`);
    }
  }

  /**
   * Opens what is named `label` as a person does: click it; when it still says collapsed, click the expander listed
   * right beside it (an arrow, a toggle, a nameless control on the adjacent line); done once it says expanded.
   */
  private expand(turn: ScriptTurn, o: ParsedObservation, lines: string[], step: Extract<ParsedStep, { kind: 'expand' }>): ScriptReply {
    const e = this.pick(o, lines, step.label, step.within);
    if (!e) return this.search(turn, `cannot find '${step.label}'`, false);
    if (/(^| )expanded( |$)/.test(e.rest)) {
      this.advance();
      return this.plan(turn, o);
    }
    if (!/(^| )collapsed( |$)/.test(e.rest) && this.effort.repeats > 0)
      return this.giveUp(`clicked '${step.label}' and the observation shows no expanded or collapsed state for it`);
    this.effort.repeats += 1;
    if (this.effort.repeats === 1) return this.call('click', { index: e.index }, true);
    const expander = o.elements.find(
      (x) =>
        x !== e &&
        Math.abs(x.lineNo - e.lineNo) <= 1 &&
        (x.name.trim() === '' ||
          /expand|collapse|toggle|open|show|more|arrow|caret|chevron|icon/i.test(x.name) ||
          containsWords(x.name, step.label)),
    );
    if (!expander || this.effort.repeats > 2)
      return this.giveUp(`'${step.label}' stays collapsed after a click, and no expander is listed beside it`);
    return this.call('click', { index: expander.index }, true);
  }

  /** The element a person would take for `label` (after `within` in reading order, when given). */
  private pick(o: ParsedObservation, lines: string[], label: string, within?: string, filter?: (e: ObservedLine) => boolean) {
    const pool = filter ? o.elements.filter(filter) : o.elements;
    const hits = named(pool, label);
    if (!within) return hits[0];
    // An element that names the place itself ("Save Vela 16 Pro to wishlist").
    const own = hits.find((e) => containsWords(e.name, within));
    if (own) return own;
    const raw = o.text.split('\n');
    const isRegion = (n: number) => /^-- .* --$/.test(raw[n] ?? '');
    // A region named after the place ("-- region 'Billing Address' --", an accordion's panel under its heading).
    const region = raw.findIndex((l, n) => isRegion(n) && containsWords(l.slice(3, -3), within));
    const a = region >= 0 ? region : anchorLine(o, lines, within);
    if (a < 0) return undefined;
    // The region the place is in ("-- article --" … the next "-- … --"): its only match, else the first after the place.
    let start = a;
    while (start > 0 && !isRegion(start)) start -= 1;
    let end = a + 1;
    while (end < raw.length && !isRegion(end)) end += 1;
    const inRegion = hits.filter((e) => e.lineNo >= start && e.lineNo < end);
    if (inRegion.length === 1) return inRegion[0];
    const after = hits.filter((e) => e.lineNo >= a && e.lineNo - a <= 3 * NEAR_LINES).sort((x, y) => x.lineNo - y.lineNo);
    return after[0];
  }

  private pickTab(o: ParsedObservation, title: string) {
    for (const t of [
      (s: string) => norm(s) === norm(title),
      (s: string) => startsWithWords(s, title),
      (s: string) => containsWords(s, title),
    ]) {
      const hit = o.tabs.find((tab) => t(tab.title));
      if (hit) return hit;
    }
    return undefined;
  }

  /** A tab tool's arguments as it declares them: the tab's number, or its title. */
  private tabArgs(turn: ScriptTurn, tool: string, id: number, title: string, onlyIfRequired = false): Record<string, unknown> {
    const params = this.params(turn, tool);
    const props = Object.entries(params.properties ?? {});
    const required = new Set(params.required ?? []);
    const num = props.find(([, p]) => p.type === 'integer' || p.type === 'number');
    if (num && (!onlyIfRequired || required.has(num[0]))) return { [num[0]]: id };
    const str = props.find(([, p]) => p.type === 'string');
    if (str && (!onlyIfRequired || required.has(str[0]))) return { [str[0]]: title };
    return {};
  }

  private params(turn: ScriptTurn, tool: string) {
    const tools = (turn.body.tools ?? []) as Tool[];
    return tools.find((t) => t.function.name === tool)?.function.parameters ?? {};
  }

  /**
   * What a person does when the thing is not there: wait a moment (it may still be loading), read on through the
   * read/extract tool (for text), scroll, and then say what is missing.
   */
  private search(turn: ScriptTurn, why: string, text: boolean, scroll = true): ScriptReply {
    const has = (tool: string) => turn.toolNames.includes(tool);
    if (!this.effort.waited && has('wait')) {
      this.effort.waited = true;
      this.pending = { kind: 'look' };
      return { tool: 'wait', args: { seconds: 1 } };
    }
    const reader = has('read') ? 'read' : has('extract') ? 'extract' : null;
    if (text && reader && this.effort.reads === 0) {
      this.effort.reads = 1;
      this.pending = { kind: 'read', tool: reader, offset: 0, page: 1 };
      return { tool: reader, args: {} };
    }
    if (scroll && this.effort.scrolls < MAX_SCROLLS && has('scroll')) {
      this.effort.scrolls += 1;
      this.pending = { kind: 'look' };
      return { tool: 'scroll', args: { direction: 'down' } };
    }
    return this.giveUp(why);
  }

  /** After a read/extract: the value, or the next page of the text when the tool can page, or back to searching. */
  private afterRead(turn: ScriptTurn, p: Extract<Pending, { kind: 'read' }>): ScriptReply | null {
    const step = this.step;
    if (!step || step.kind !== 'read') return null;
    const quoted = quotedText(turn.lastToolResult);
    if (quoted) {
      const lines = quoted.split('\n');
      const v = readIn(lines, step.pattern, step.near, (label) => {
        const exact = lines.findIndex((l) => norm(l) === norm(label));
        return exact >= 0 ? exact : lines.findIndex((l) => containsWords(l, label));
      });
      if (v !== null) {
        this.values[step.key] = v;
        this.advance();
        return null;
      }
    }
    // Page on when the tool takes an offset or a page number and said there is more.
    const props = this.params(turn, p.tool).properties ?? {};
    const said = turn.lastToolResult ?? '';
    const pageOf = /page (\d+) of (\d+)/i.exec(said);
    const more = pageOf ? Number(pageOf[1]) < Number(pageOf[2]) : /\bmore\b|offset=|reads on|continue/i.test(said);
    if (quoted && more && this.effort.reads < MAX_READ_PAGES) {
      const hinted = /offset[\s=:"]+(\d+)/i.exec(turn.lastToolResult ?? '')?.[1];
      const next: Record<string, unknown> | null =
        'offset' in props ? { offset: hinted ? Number(hinted) : p.offset + quoted.length } : 'page' in props ? { page: p.page + 1 } : null;
      if (next) {
        this.effort.reads += 1;
        this.pending = { kind: 'read', tool: p.tool, offset: Number(next.offset ?? 0), page: Number(next.page ?? 1) };
        return { tool: p.tool, args: next };
      }
    }
    return null;
  }

  private call(tool: string, args: Record<string, unknown>, repeat = false): ScriptReply {
    this.pending = { kind: 'act', repeat };
    return { tool, args };
  }

  private done(): ScriptReply {
    const data = this.keys.length ? Object.fromEntries(this.keys.map((k) => [k, this.values[k] ?? ''])) : { completed: true };
    return { tool: 'done', args: { success: true, data } };
  }

  private giveUp(reason: string): ScriptReply {
    this.pending = null;
    return { tool: 'fail', args: { reason: `label picker: ${reason}` } };
  }
}
