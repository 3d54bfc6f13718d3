/**
 * Where a script's own beginning ends: after its hashbang line and its directive prologue ("use strict"; and any other
 * string statements before the first real one). Code of ours put in front of a site's worker script goes here, not at
 * offset 0: in front of the prologue it would turn "use strict" into a plain string, and the site's script would run
 * sloppy (a difference its own code, and any probe, can see). 0 when the script has neither.
 *
 * A scan of tokens, not a parser: it stops (keeping what it found so far) at anything it is not sure of, such as a
 * string followed by what may continue an expression, or a prologue longer than `limit` characters. Stopping early
 * only means the old place, in front of what was not understood.
 *
 * Self-contained on purpose (no imports, nothing from outside its body, no helpers of its own): device.page.ts puts this
 * function's own source text into the prelude it makes for workers in the page. There it reads the script through
 * `text` (realmText): a page that replaced String.prototype's methods since sees no call of ours.
 */
export function prologueEnd(source: string, limit = 262_144, text?: RealmText): number {
  const t: RealmText = text ?? {
    code: (s, i) => s.charCodeAt(i),
    find: (s, what, from) => s.indexOf(what, from),
    starts: (s, what, at) => s.startsWith(what, at),
    cut: (s, from, to) => s.slice(from, to),
    match: (re, s) => re.exec(s),
  };
  const n = source.length < limit ? source.length : limit;
  const isLineEnd = (c: number) => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
  const isSpace = (c: number) =>
    c === 9 ||
    c === 11 ||
    c === 12 ||
    c === 32 ||
    c === 0xa0 ||
    c === 0xfeff ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000;
  // Whitespace and comments from `at` to the next token: where it starts (n: none within the limit) and whether a line
  // ended on the way (automatic semicolon insertion ends a directive there).
  const skip = (at: number): { next: number; lineEnd: boolean } => {
    let i = at;
    let lineEnd = false;
    while (i < n) {
      const c = t.code(source, i);
      if (isSpace(c)) i++;
      else if (isLineEnd(c)) {
        lineEnd = true;
        i++;
      } else if (c === 47 && t.code(source, i + 1) === 47) {
        while (i < n && !isLineEnd(t.code(source, i))) i++;
      } else if (c === 47 && t.code(source, i + 1) === 42) {
        const close = t.find(source, '*/', i + 2);
        if (close < 0 || close + 2 > n) return { next: n, lineEnd };
        for (let k = i + 2; k < close; k++) if (isLineEnd(t.code(source, k))) lineEnd = true;
        i = close + 2;
      } else break;
    }
    return { next: i, lineEnd };
  };
  // What, on a new line after a string, would continue it as an expression (`"a"\n+ b`, `"a"\n.length`, `"a"\nin o`).
  const continues = (at: number) => t.match(/^(?:[([.+\-*/%,?=<>&|^`]|in(?:stanceof)?(?![\w$]))/, t.cut(source, at, at + 11)) !== null;
  let i = 0;
  let end = 0; // just after the last whole directive (its own `;` included)
  if (t.starts(source, '#!', 0)) {
    while (i < n && !isLineEnd(t.code(source, i))) i++;
    if (i >= n) return 0;
    end = i += t.starts(source, '\r\n', i) ? 2 : 1;
  }
  for (;;) {
    const token = skip(i).next;
    if (token >= n) return end;
    const quote = t.code(source, token);
    if (quote !== 34 && quote !== 39) return end;
    // A string literal, to its closing quote (a raw line end in it: not a string this scan reads).
    let j = token + 1;
    for (; j < n; j++) {
      const c = t.code(source, j);
      if (c === quote) break;
      if (c === 92) j++;
      else if (isLineEnd(c)) return end;
    }
    if (j >= n) return end;
    const closed = j + 1;
    const after = skip(closed);
    if (after.next >= source.length) return closed; // the script's last statement
    if (after.next >= n) return end;
    if (t.code(source, after.next) === 59) end = i = after.next + 1;
    else if (after.lineEnd && !continues(after.next)) end = i = closed;
    else return end; // an expression that begins with a string: the prologue ended before it
  }
}

/** String and RegExp reads through a realm's own built-ins, taken when realmText is called (at the realm's start). */
export interface RealmText {
  code: (s: string, i: number) => number;
  find: (s: string, what: string, from: number) => number;
  starts: (s: string, what: string, at: number) => boolean;
  cut: (s: string, from: number, to: number) => string;
  /** RegExp.prototype.exec itself (test() would look exec up on the RegExp, where a page may have put its own). */
  match: (re: RegExp, s: string) => RegExpExecArray | null;
}

/**
 * The realm's own String.prototype and RegExp.prototype methods, called through its own Reflect.apply: page code of
 * ours that reads a script or a URL later (a worker's start) makes no call a page script could have trapped since.
 * Self-contained (the device's worker prelude carries its source text).
 */
export function realmText(g: typeof globalThis): RealmText {
  const apply = g.Reflect.apply;
  const proto = g.String.prototype;
  const { charCodeAt, indexOf, startsWith, slice } = proto;
  const exec = g.RegExp.prototype.exec;
  return {
    code: (s, i) => apply(charCodeAt, s, [i]) as number,
    find: (s, what, from) => apply(indexOf, s, [what, from]) as number,
    starts: (s, what, at) => apply(startsWith, s, [what, at]) as boolean,
    cut: (s, from, to) => apply(slice, s, [from, to]) as string,
    match: (re, s) => apply(exec, re, [s]) as RegExpExecArray | null,
  };
}
