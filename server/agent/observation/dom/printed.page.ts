/**
 * Values as pages print them (no DOM here: the page code and the server's replay both use it, so a value is
 * read back on replay exactly as it was bound). A number may carry thousands separators and a multiplier
 * (`1,234`, `1.2k`, `3M`); signs and units around it (`$`, `#`, `%`, `v`) stay in the binding's prefix and suffix.
 */

/** A number as printed: sign, digits with thousands separators, decimals, and a k/K/M/B multiplier not followed by a letter. */
export const PRINTED_NUMBER = /^[-+]?\d[\d,]*(?:\.\d+)?(?:[kKMB](?![\p{L}\p{N}_]))?/u;

const MULTIPLIER: Record<string, number> = { k: 3, K: 3, M: 6, B: 9 };

/** The value of a printed number (`1,234` → 1234, `1.2k` → 1200, `3M` → 3000000); NaN when it is none. */
export function printedNumber(text: string): number {
  const m = PRINTED_NUMBER.exec(text.trim());
  if (!m || m[0].length !== text.trim().length) return NaN;
  const last = m[0].charAt(m[0].length - 1);
  const exp = MULTIPLIER[last];
  const digits = (exp ? m[0].slice(0, -1) : m[0]).replace(/,/g, '');
  // Shifted as a decimal exponent, not multiplied: 2.3k is 2300, not 2299.9999999999995.
  return exp ? Number(`${digits}e${exp}`) : Number(digits);
}

/**
 * How a page may print a number of the answer: as JavaScript writes it, with thousands separators, with two decimals
 * (prices: `12.50` for 12.5, `3,500.00` for 3500) and in compact notation (`1.2K`, `1.2k`, `3M`) when that is exact.
 */
export function numberForms(n: number): string[] {
  const forms = [n.toLocaleString('en-US', { maximumFractionDigits: 20 }), String(n)];
  if (Number.isFinite(n) && Math.round(n * 100) === n * 100) {
    forms.push(n.toFixed(2), n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }));
  }
  if (Math.abs(n) >= 1000) {
    for (const [suffix, exp] of Object.entries(MULTIPLIER)) {
      const mantissa = n / 10 ** exp;
      if (Math.abs(mantissa) < 1 || Math.abs(mantissa) >= 1000) continue;
      const text = String(Number(mantissa.toFixed(3)));
      if (printedNumber(text + suffix) === n) forms.push(text + suffix);
    }
  }
  return [...new Set(forms)];
}

/** A string answer that is a date (YYYY-MM-DD): the day count from `today` (UTC days), else null. */
export function daysBefore(value: string, today: Date): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return null;
  const day = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  const now = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  const n = Math.round((now - day) / 86_400_000);
  return Number.isNaN(n) ? null : n;
}

/** How a page prints a day `n` days ago: "today", "yesterday", "3 days ago", "1 day ago". */
export function relativeDayForms(n: number): string[] {
  if (n < 0) return [];
  if (n === 0) return ['today'];
  return n === 1 ? ['yesterday', '1 day ago', 'a day ago'] : [`${n} days ago`];
}

/** The number of days a relative day names ("today" 0, "yesterday" 1, "3 days ago" 3), or null. */
export function relativeDays(text: string): number | null {
  const t = text.trim().toLowerCase();
  if (t === 'today') return 0;
  if (t === 'yesterday') return 1;
  const m = /^(\d+|a|an) days? ago$/.exec(t);
  if (!m) return null;
  return m[1] === 'a' || m[1] === 'an' ? 1 : Number(m[1]);
}

/** The ISO date (YYYY-MM-DD) `n` UTC days before `today`. */
export function isoDayBefore(n: number, today: Date): string {
  const now = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  return new Date(now - n * 86_400_000).toISOString().slice(0, 10);
}
