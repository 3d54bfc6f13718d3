/**
 * Dates and times as a person writes them ("07/18/2025", "18.07.2025", "July 18 2025", "2:30 PM", "14:30",
 * "2025-W29") → the value a native <input type=date|time|datetime-local|month|week> accepts (its ISO form), or
 * the format a text field asks for in its placeholder ("MM/DD/YYYY"). Written out rather than taken from a
 * parsing library: the accepted forms are few and the rules for ambiguous ones must be exact and testable —
 * numbers split by "/" or "-" read month first (en-US, the browser's locale) unless the first one cannot be a
 * month, numbers split by "." read day first, and a field's own format wins over both.
 */
export const TEMPORAL_TYPES = ['date', 'time', 'datetime-local', 'month', 'week'] as const;
export type TemporalType = (typeof TEMPORAL_TYPES)[number];

export const isTemporalType = (t: string): t is TemporalType => (TEMPORAL_TYPES as readonly string[]).includes(t);

export type Converted = { ok: true; value: string } | { ok: false; reason: string };

interface Ymd {
  y: number;
  m: number;
  d: number;
}
interface Hms {
  h: number;
  min: number;
  s: number;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const WEEKDAYS = /\b(mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(day|nesday|sday|urday)?\b\.?,?/gi;

/** An example of each type's value, for error messages. */
export const EXAMPLE: Record<TemporalType, string> = {
  date: '2025-07-18 or 07/18/2025 or July 18, 2025',
  time: '14:30 or 2:30 PM',
  'datetime-local': '2025-07-18 14:30',
  month: '2025-07 or July 2025',
  week: '2025-W29',
};

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

function daysIn(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

function validDate(y: number, m: number, d: number): Ymd | null {
  if (!Number.isInteger(y) || y < 1 || y > 9999 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m)) return null;
  return { y, m, d };
}

function monthOf(word: string): number | null {
  const w = word.toLowerCase().replace(/\.$/, '');
  if (w.length < 3) return null;
  const i = MONTHS.findIndex(
    (m) => w.startsWith(m) && 'january february march april may june july august september october november december'.includes(w),
  );
  return i < 0 ? null : i + 1;
}

function fullYear(s: string): number {
  const n = Number(s);
  // Two-digit years: 00–69 → 2000s, 70–99 → 1900s (the POSIX strptime pivot).
  return s.length <= 2 ? (n < 70 ? 2000 + n : 1900 + n) : n;
}

export type Order = 'mdy' | 'dmy' | 'ymd';

/** A calendar date; `order` says how to read an all-number date that could be read two ways. */
export function parseDate(text: string, order?: Order): Ymd | null {
  const s = text
    .trim()
    .replace(WEEKDAYS, ' ')
    .replace(/(\d)(st|nd|rd|th)\b/gi, '$1')
    .replace(/\bof\b/gi, ' ')
    .replace(/,/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  let m = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$/.exec(s);
  if (m) return validDate(+m[1]!, +m[2]!, +m[3]!);
  m = /^(\d{4})(\d{2})(\d{2})$/.exec(s);
  if (m) return validDate(+m[1]!, +m[2]!, +m[3]!);
  m = /^(\d{1,2})([-/. ])(\d{1,2})\2(\d{2}|\d{4})$/.exec(s);
  if (m) {
    const a = +m[1]!,
      b = +m[3]!,
      y = fullYear(m[4]!);
    const read = order ?? (m[2] === '.' ? 'dmy' : 'mdy');
    const first = read === 'dmy' ? validDate(y, b, a) : validDate(y, a, b);
    if (first) return first;
    // The other reading only when the first is impossible (18/07/2025 is not month 18).
    return read === 'dmy' ? validDate(y, a, b) : validDate(y, b, a);
  }
  const words = s.split(' ');
  if (words.length === 3) {
    const [p, q, r] = words as [string, string, string];
    let month = monthOf(p);
    if (month && /^\d{1,2}$/.test(q) && /^\d{4}$/.test(r)) return validDate(+r, month, +q);
    month = monthOf(q);
    if (month && /^\d{1,2}$/.test(p) && /^\d{4}$/.test(r)) return validDate(+r, month, +p);
    if (month && /^\d{4}$/.test(p) && /^\d{1,2}$/.test(r)) return validDate(+p, month, +r);
  }
  return null;
}

export function parseTime(text: string): Hms | null {
  const s = text.trim().toLowerCase().replace(/\s+/g, ' ');
  if (s === 'noon' || s === 'midday') return { h: 12, min: 0, s: 0 };
  if (s === 'midnight') return { h: 0, min: 0, s: 0 };
  const m = /^(\d{1,2})(?:[:h.](\d{2}))?(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)?$/.exec(s);
  if (!m) return null;
  let h = +m[1]!;
  const min = m[2] ? +m[2] : 0;
  const sec = m[3] ? +m[3] : 0;
  const ampm = m[4]?.[0];
  if (!m[2] && !ampm) return null; // "14" alone is a number, not a time
  if (ampm) {
    if (h < 1 || h > 12) return null;
    h = ampm === 'p' ? (h % 12) + 12 : h % 12;
  }
  if (h > 23 || min > 59 || sec > 59) return null;
  return { h, min, s: sec };
}

function timeValue(t: Hms): string {
  return `${pad(t.h)}:${pad(t.min)}${t.s ? `:${pad(t.s)}` : ''}`;
}

/** A date and a time in one text: ISO "2025-07-18T14:30", or a date followed by a time ("July 18 2025 at 2:30 PM"). */
export function parseDateTime(text: string, order?: Order): { date: Ymd; time: Hms } | null {
  const s = text.trim().replace(/\s+/g, ' ');
  const iso = /^(\d{4}-\d{1,2}-\d{1,2})[T ](\d{1,2}:\d{2}(?::\d{2})?)(?:\.\d+)?$/.exec(s);
  if (iso) {
    const date = parseDate(iso[1]!);
    const time = parseTime(iso[2]!);
    return date && time ? { date, time } : null;
  }
  const words = s.split(' ');
  for (const n of [2, 1]) {
    if (words.length <= n) continue;
    const time = parseTime(words.slice(-n).join(' '));
    if (!time) continue;
    const datePart = words
      .slice(0, -n)
      .join(' ')
      .replace(/(,|\bat)$/i, '')
      .trim();
    const date = parseDate(datePart, order);
    if (date) return { date, time };
  }
  return null;
}

function isoWeek(d: Ymd): { y: number; w: number } {
  const t = new Date(Date.UTC(d.y, d.m - 1, d.d));
  const day = t.getUTCDay() || 7;
  t.setUTCDate(t.getUTCDate() + 4 - day); // the Thursday of this week decides its year
  const y = t.getUTCFullYear();
  const w = Math.ceil(((t.getTime() - Date.UTC(y, 0, 1)) / 86_400_000 + 1) / 7);
  return { y, w };
}

function weeksIn(y: number): number {
  return isoWeek({ y, m: 12, d: 28 }).w;
}

function parseMonth(text: string): { y: number; m: number } | null {
  const s = text.trim().replace(/,/g, ' ').replace(/\s+/g, ' ');
  let m = /^(\d{4})[-/.](\d{1,2})$/.exec(s);
  if (m) return +m[2]! >= 1 && +m[2]! <= 12 ? { y: +m[1]!, m: +m[2]! } : null;
  m = /^(\d{1,2})[-/.](\d{4})$/.exec(s);
  if (m) return +m[1]! >= 1 && +m[1]! <= 12 ? { y: +m[2]!, m: +m[1]! } : null;
  m = /^([A-Za-z]+\.?) (\d{4})$/.exec(s);
  if (m) {
    const month = monthOf(m[1]!);
    return month ? { y: +m[2]!, m: month } : null;
  }
  const date = parseDate(s);
  return date ? { y: date.y, m: date.m } : null;
}

function parseWeek(text: string): { y: number; w: number } | null {
  const s = text.trim().toLowerCase().replace(/,/g, ' ').replace(/\s+/g, ' ');
  const yearFirst = /^(\d{4})[- ]?w(?:eek)? ?(\d{1,2})$/.exec(s);
  const weekFirst = /^w(?:eek)? ?(\d{1,2})(?: of)? (\d{4})$/.exec(s);
  const yw = yearFirst ? { y: +yearFirst[1]!, w: +yearFirst[2]! } : weekFirst ? { y: +weekFirst[2]!, w: +weekFirst[1]! } : null;
  if (yw) return yw.w >= 1 && yw.w <= weeksIn(yw.y) ? yw : null;
  const date = parseDate(s);
  return date ? isoWeek(date) : null;
}

/** What a person wrote → the value of a native input of that type. */
export function toInputValue(type: TemporalType, text: string): Converted {
  const fail = (): Converted => ({
    ok: false,
    reason: `it is not a ${type === 'datetime-local' ? 'date and time' : type} (write e.g. ${EXAMPLE[type]})`,
  });
  switch (type) {
    case 'date': {
      const d = parseDate(text);
      return d ? { ok: true, value: `${pad(d.y, 4)}-${pad(d.m)}-${pad(d.d)}` } : fail();
    }
    case 'time': {
      const t = parseTime(text);
      return t ? { ok: true, value: timeValue(t) } : fail();
    }
    case 'datetime-local': {
      const dt = parseDateTime(text);
      if (!dt) return fail();
      const { date: d, time: t } = dt;
      return { ok: true, value: `${pad(d.y, 4)}-${pad(d.m)}-${pad(d.d)}T${timeValue(t)}` };
    }
    case 'month': {
      const m = parseMonth(text);
      return m ? { ok: true, value: `${pad(m.y, 4)}-${pad(m.m)}` } : fail();
    }
    case 'week': {
      const w = parseWeek(text);
      return w ? { ok: true, value: `${pad(w.y, 4)}-W${pad(w.w)}` } : fail();
    }
  }
}

/** Whether two values of a native input mean the same instant (browsers may drop ":00" seconds or pad). */
export function sameInputValue(type: TemporalType, a: string, b: string): boolean {
  const x = toInputValue(type, a);
  const y = toInputValue(type, b);
  return x.ok && y.ok && x.value === y.value;
}

/**
 * A date format a text field states (placeholder "MM/DD/YYYY", "dd.mm.yyyy", "YYYY-MM-DD"): the order of its
 * parts, its separator and the width of each part.
 */
export interface DateFormat {
  order: Order;
  sep: string;
  /** Widths: day and month 1 or 2, year 2 or 4. */
  widths: { d: number; m: number; y: number };
  spelled: string;
}

export function dateFormatIn(hint: string): DateFormat | null {
  const m = /(?<![a-z])([dmy]{1,4})([/.\- ])([dmy]{1,4})\2([dmy]{1,4})(?![a-z])/i.exec(hint);
  if (!m) return null;
  const parts = [m[1]!, m[3]!, m[4]!].map((p) => p.toLowerCase());
  const letters = parts.map((p) => p[0]).join('');
  if (!['mdy', 'dmy', 'ymd'].includes(letters) || parts.some((p) => new Set(p).size !== 1)) return null;
  const width = (c: string) => parts.find((p) => p[0] === c)!.length;
  const widths = { d: width('d'), m: width('m'), y: width('y') };
  if (widths.d > 2 || widths.m > 2 || (widths.y !== 2 && widths.y !== 4)) return null;
  return { order: letters as Order, sep: m[2]!, widths, spelled: `${m[1]}${m[2]}${m[3]}${m[2]}${m[4]}` };
}

/** What a person wrote → the text a field with that format expects; null when it is not a date. */
export function formatDate(text: string, f: DateFormat): string | null {
  // Numbers written the field's own way are read the field's way (07/08/2025 in a dd/mm/yyyy field is 7 August).
  const d = parseDate(text, f.order);
  if (!d) return null;
  const part = { d: pad(d.d, f.widths.d), m: pad(d.m, f.widths.m), y: f.widths.y === 2 ? pad(d.y % 100) : pad(d.y, 4) };
  return f.order
    .split('')
    .map((c) => part[c as 'd' | 'm' | 'y'])
    .join(f.sep);
}
