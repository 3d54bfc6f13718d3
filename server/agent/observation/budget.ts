import type { ObservedElement, SnapshotLine } from './types';

/**
 * Which page text the observation shows, chosen the way a person reads a page: headings, the short text next to
 * a control (its label, a price beside "Add to cart"), what is on screen, then the rest in reading order, until
 * the budget is spent. What is left out is never silent: one line per section says how much was cut and which
 * index `extract` reads it by (a section whose container has no index of its own gets one here).
 */
export type WorkLine =
  | { k: 't'; s: string; h?: number; c?: string; v?: 1; n?: number }
  | { k: 'e'; i: number; h?: number }
  | { k: 's'; s: string }
  | { k: 'frame'; host: string };

export interface WorkSection {
  role: string;
  name: string;
  tag: string;
  /** Its section number (refs.sec), in its own document. */
  id: number;
  /** The index of the element it is, when it is one (a dialog, a scrollable box). */
  idx: number;
  frame?: number[];
}

export interface TextChoice {
  lines: SnapshotLine[];
  /** Sections that were cut and needed an index of their own. */
  sections: ObservedElement[];
  cut: boolean;
}

/** The least text an observation keeps, however many controls the page has. */
export const MIN_TEXT_CHARS = 1_500;
/** A line near a control longer than this is ordinary text, not a label. */
const NEAR_CONTROL_CHARS = 200;
/** Below this much room a line is left out rather than cut short. */
const MIN_CLIP = 120;
const MAX_CUT_NOTES = 8;

const label = (s: WorkSection) => (s.name ? `${s.role} '${s.name.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : s.role);

export function chooseText(lines: WorkLine[], sections: Map<string, WorkSection>, budget: number, nextIndex: number): TextChoice {
  const kept = new Map<number, string>();
  const cutChars = new Map<number, number>();
  const isControl = (j: number) => lines[j]?.k === 'e';
  const tiers: number[][] = [[], [], [], []];
  lines.forEach((l, j) => {
    if (l.k !== 't') return;
    if (!l.s) {
      cutChars.set(j, l.n ?? 0);
      return;
    }
    const near = l.s.length <= NEAR_CONTROL_CHARS && (isControl(j - 1) || isControl(j + 1));
    tiers[l.h ? 0 : near ? 1 : l.v ? 2 : 3]!.push(j);
  });
  let left = budget;
  for (const tier of tiers) {
    let full = false;
    for (const j of tier) {
      const s = (lines[j] as { s: string }).s;
      if (!full && s.length <= left) {
        kept.set(j, s);
        left -= s.length;
        continue;
      }
      // The first line that does not fit is cut short when there is room; later lines of this tier wait for extract.
      if (!full && left >= MIN_CLIP) {
        const room = left - 1;
        const head = s.slice(0, room).replace(/\s+\S*$/, '') || s.slice(0, room);
        kept.set(j, `${head}\u2026`);
        cutChars.set(j, s.length - head.length);
        left = 0;
      } else cutChars.set(j, s.length);
      full = true;
    }
  }

  // One note per section, where its first cut text stood.
  const perSection = new Map<string, { chars: number; at: number }>();
  for (const [j, chars] of cutChars) {
    const key = (lines[j] as { c?: string }).c ?? '';
    const p = perSection.get(key);
    if (p) p.chars += chars;
    else perSection.set(key, { chars, at: j });
  }
  const notes = new Map<number, SnapshotLine>();
  const extra: ObservedElement[] = [];
  let overflow = 0;
  let index = nextIndex;
  const ordered = [...perSection.entries()].sort((a, b) => a[1].at - b[1].at);
  ordered.forEach(([key, p], n) => {
    if (n >= MAX_CUT_NOTES) {
      overflow += p.chars;
      return;
    }
    const sec = key ? sections.get(key) : undefined;
    if (!sec) {
      notes.set(p.at, { k: 'cut', chars: p.chars });
      return;
    }
    let i = sec.idx;
    if (!i) {
      i = index++;
      extra.push({
        index: i,
        role: sec.role,
        name: sec.name,
        tag: sec.tag,
        scope: null,
        states: {},
        section: sec.id,
        ...(sec.frame?.length ? { frame: sec.frame } : {}),
      });
    }
    notes.set(p.at, { k: 'cut', chars: p.chars, where: label(sec), i });
  });

  const out: SnapshotLine[] = [];
  lines.forEach((l, j) => {
    const note = notes.get(j);
    const s = l.k === 't' ? kept.get(j) : undefined;
    // A note stands where the cut text starts: after the part of a line that was kept, before a line left out.
    if (note && s === undefined) out.push(note);
    if (l.k !== 't') out.push(l);
    else if (s !== undefined) out.push(l.h ? { k: 't', s, h: l.h } : { k: 't', s });
    if (note && s !== undefined) out.push(note);
  });
  if (overflow) out.push({ k: 'cut', chars: overflow });
  return { lines: out, sections: extra, cut: cutChars.size > 0 };
}
