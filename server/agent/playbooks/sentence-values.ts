/**
 * Values people write into the action itself ("Send a message to Priya Nair saying 'Running late'"), read
 * with a few transparent rules. They fill only the parameters a request does not give (explicit parameters
 * always win, see fill-parameters.ts), and the router sees each one as a slot word (`v_text`, `v_person` …) so
 * that "message Priya" and "message Marcus" are the same request to it.
 *
 *   text        quoted text ("…", '…', “…”), else what follows "saying" / "that says" / "with the text"
 *   name        "called / named / titled <name>" (quoted, or the next word)
 *   person      "to / with <person>" (@handle, user-name, or Capitalised Words), else an @handle or Capitalised Words
 *   repository  "owner/name"
 *   number      "#12", "issue 12", "number 12"
 *   count       "last / latest / first / top 5", "5 latest posts", "the 3 newest repositories", "five posts"
 *
 * Pure and bounded: the action is at most a few thousand characters and every pattern is linear.
 */
export type SentenceSlot = 'text' | 'name' | 'person' | 'repository' | 'number' | 'count';

export interface SentenceSpan {
  slot: SentenceSlot;
  value: string | number;
  /** Where in the action the value was written (start inclusive, end exclusive). */
  start: number;
  end: number;
}

export type SentenceValues = Partial<Record<SentenceSlot, string | number>>;

/** The word that stands for a value of this slot in the router's view of an action (unlike any real word). */
export const slotWord = (slot: SentenceSlot | 'topic') => `v_${slot}`;

const NUMBER_WORDS: Record<string, number> = Object.fromEntries(
  [
    ...'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty'
      .split(' ')
      .map((w, i) => [w, i + 1] as const),
    ['thirty', 30],
    ['forty', 40],
    ['fifty', 50],
    ['hundred', 100],
    ['a dozen', 12],
    ['a couple of', 2],
    ['a couple', 2],
    ['a pair of', 2],
    ['a single', 1],
  ].sort((a, b) => String(b[0]).length - String(a[0]).length),
);
const NUMBER = `(\\d{1,4}|${Object.keys(NUMBER_WORDS)
  .map((w) => w.replace(/ /g, '\\s+'))
  .join('|')})`;
const toNumber = (word: string) => NUMBER_WORDS[word.toLowerCase().replace(/\s+/g, ' ')] ?? Number(word);

/** Words that follow "to" or "with" without naming a person ("share with my network", "post to everyone"). */
const NOT_A_PERSON = new Set(
  (
    'a an the my your our their his her its this that these those it them me us him everyone everybody anyone all ' +
    'people friends followers connections network feed timeline profile repo repository project issue post message ' +
    'orbit forgehub github linkedin x public private say saying read get see do make be star tell ask'
  ).split(' '),
);

/** Hyphenated words that are not user names ("follow-up"). */
const COMPOUND_WORDS = new Set(
  'follow-up sign-in log-in sign-up e-mail to-do read-only built-in set-up check-in re-run open-source co-worker up-to-date one-on-one'.split(
    ' ',
  ),
);

/** Capitalised words that are not names (a sentence's first word is never taken as a name either). */
const NOT_A_NAME = new Set(
  'I Orbit ForgeHub Forgehub GitHub Github LinkedIn Lumen X DM DMs PM PMs PR README Readme OK Please Then And Also My The A An'.split(' '),
);

const QUOTES: [RegExp, number][] = [
  [/"([^"\n]{1,4000})"/g, 1],
  [/\u201c([^\u201d\n]{1,4000})\u201d/g, 1],
  [/\u2018([^\u2019\n]{1,4000})\u2019/g, 1],
  // Single quotes only around text, so apostrophes ("Priya's post", "I'll") are left alone.
  [/(^|[\s:([])'((?:[^'\n]|'(?=[A-Za-z]))+?)'(?=$|[\s.,!?;:)\]])/g, 2],
  [/\u00ab\s*([^\u00bb\n]{1,4000}?)\s*\u00bb/g, 1],
];

/**
 * Verb frames that carry a message's text unquoted (the text runs to the end of the action). The first that
 * matches wins; quoted text and "saying …" win over all of them.
 */
const TEXT_FRAMES: RegExp[] = [
  // "Let Priya know that the demo moved", "let @marcus-webb know the deploy finished"
  /\blet\s+[^.!?:]{1,60}?\s+know\s+(?:that\s+)?(\S[^\n]*)$/i,
  // "Tell Lena that …", "remind Jonas that …", "send word to Lena that …", "announce on Orbit that …"
  /\b(?:tell|remind|inform|notify|warn|announce|word\s+to|news\s+to)\b[^.!?:]{0,60}?\s+that\s+(\S[^\n]*)$/i,
  // "Ping Marcus Webb: the build is green", "Shoot @priya a DM: lunch?"
  /^\s*(?:please\s+)?(?:ping|message|dm|tell|text|shoot|send|write|notify|remind)\b[^:"'\u201c\n]{1,80}:\s+(\S[^\n]*)$/i,
  // "Ping Priya and say thanks", "… and tell her the demo moved"
  /\band\s+(?:say|tell\s+(?:him|her|them))\s+(?:that\s+)?(\S[^\n]*)$/i,
];

const CAPITALISED = "[A-Z\\u00c0-\\u00de][\\p{L}'\\u2019-]*";
const NAME_WORDS = new RegExp(`${CAPITALISED}(?:\\s+${CAPITALISED}){0,3}`, 'u');
const HANDLE = /@[A-Za-z0-9][A-Za-z0-9_.-]{0,63}/;
const USER_NAME = /[a-z0-9]+(?:[-_][a-z0-9]+)+/;
const REPOSITORY = /(?<![\w/.:-])([A-Za-z0-9][A-Za-z0-9_.-]{0,99}\/[A-Za-z0-9._-]{1,100}?)(?:\.git)?(?=$|[\s"'”),!?:;]|\.(?:\s|$))/g;

/** Every value the rules find in the action, in the order they were found (quoted text first). */
export function sentenceSpans(action: string): SentenceSpan[] {
  const spans: SentenceSpan[] = [];
  const taken: [number, number][] = [];
  const free = (start: number, end: number) => taken.every(([s, e]) => end <= s || start >= e);
  const add = (slot: SentenceSlot, value: string | number, start: number, end: number) => {
    if (!free(start, end)) return false;
    spans.push({ slot, value, start, end });
    taken.push([start, end]);
    return true;
  };

  // Quoted text: the value of "called 'x'" is a name, any other is text (the first one; others stay spans too).
  const quoted: { value: string; start: number; end: number }[] = [];
  for (const [pattern, group] of QUOTES) {
    for (const m of action.matchAll(pattern)) {
      const inner = m[group]!;
      const start = m.index! + m[0].indexOf(inner) - 1;
      const value = inner.trim();
      if (value && free(start, start + inner.length + 2)) {
        quoted.push({ value, start, end: start + inner.length + 2 });
        taken.push([start, start + inner.length + 2]);
      }
    }
  }
  taken.length = 0;
  for (const q of quoted.sort((a, b) => a.start - b.start)) {
    const before = action.slice(Math.max(0, q.start - 20), q.start);
    // Right after "called" or after the noun it names ("a repository 'website'"), a quoted value is a name.
    const naming = /\b(?:called|named|titled|title|repository|repo|project)\s*:?\s*$/i.test(before);
    add(naming ? 'name' : 'text', q.value, q.start, q.end);
  }

  // Unquoted text after "saying …": the rest of the sentence.
  if (!spans.some((s) => s.slot === 'text')) {
    const m = /\b(?:saying|that says|which says|with the (?:text|message|words)|reading)\s*:?\s+(\S[^\n]*)$/i.exec(action);
    if (m) {
      const value = m[1]!.replace(/\s+/g, ' ').trim();
      const start = m.index + m[0].length - m[1]!.length;
      if (value) add('text', value, start, action.length);
    }
  }

  // Verb frames whose object is the text: "let X know (that) …", "tell X that …", "ping X: …".
  if (!spans.some((s) => s.slot === 'text')) {
    for (const frame of TEXT_FRAMES) {
      const m = frame.exec(action);
      const value = m?.[1]?.replace(/\s+/g, ' ').trim();
      if (!m || !value) continue;
      if (add('text', value, m.index + m[0].length - m[1]!.length, action.length)) break;
    }
  }

  for (const m of action.matchAll(REPOSITORY)) {
    if (/^\d+\/\d+$/.test(m[1]!) || /^https?:/i.test(action.slice(Math.max(0, m.index! - 8), m.index!))) continue;
    add('repository', m[1]!, m.index!, m.index! + m[1]!.length);
  }

  const named = new RegExp(`\\b(?:called|named|titled)\\s+(${NAME_WORDS.source}|[A-Za-z0-9][A-Za-z0-9_.-]{0,99})`, 'u').exec(action);
  if (named) add('name', named[1]!, named.index + named[0].length - named[1]!.length, named.index + named[0].length);

  for (const m of action.matchAll(/#(\d{1,9})\b|\b(?:issue|pull request|pr|number|no\.)\s+#?(\d{1,9})\b/gi)) {
    const digits = m[1] ?? m[2]!;
    const at = m.index! + m[0].length - digits.length;
    add('number', Number(digits), action[at - 1] === '#' ? at - 1 : at, m.index! + m[0].length);
  }

  const counts = [
    // A bound: "at most five", "up to 10", "no more than twelve", "a maximum of 3".
    new RegExp(`\\b(?:at most|up to|no more than|not more than|a maximum of|max(?:imum)?\\.?|only)\\s+(?:the\\s+)?${NUMBER}\\b`, 'i'),
    new RegExp(`\\b(?:last|latest|first|top|recent|newest|most recent|next)\\s+${NUMBER}\\b`, 'i'),
    // "my 3 most recent …", "the 2 newest …", "two of my repos", "a dozen posts".
    new RegExp(`\\b${NUMBER}\\s+(?:most\\s+)?(?:recent(?:ly)?|latest|newest|last|first|of\\s+(?:my|the|his|her|their|your))\\b`, 'i'),
    new RegExp(`\\b${NUMBER}\\s+(?:(?:last|latest|first|top|recent|newest|most recent|new|unread|open|\\w+)\\s+)?[a-z]+s\\b`, 'i'),
  ];
  for (const pattern of counts) {
    const m = pattern.exec(action);
    if (!m) continue;
    const start = m.index + m[0].indexOf(m[1]!);
    if (add('count', toNumber(m[1]!), start, start + m[1]!.length)) break;
  }

  // A person: after "to" / "with" first, else any @handle or capitalised name that is not the first word.
  // Not after "want to", "need to", "like to" …: what follows is a verb ("I want to follow Lena").
  const person = new RegExp(
    `(?<!\\b(?:want|wants|need|needs|like|love|have|has|going|able|trying|try|how|ought|used)\\s+)\\b(?:to|with)\\s+(${HANDLE.source}|${USER_NAME.source}|${NAME_WORDS.source}|[a-z][a-z'-]{1,30})`,
    'gu',
  );
  for (const m of action.matchAll(person)) {
    const value = trimName(m[1]!);
    if (!value || NOT_A_PERSON.has(value.toLowerCase().replace(/^@/, ''))) continue;
    const start = m.index! + m[0].length - m[1]!.length;
    if (add('person', value, start, start + value.length)) break;
  }
  if (!spans.some((s) => s.slot === 'person')) {
    const loose = new RegExp(`${HANDLE.source}|${NAME_WORDS.source}|(?<![\\w/.-])${USER_NAME.source}(?![\\w/.-])`, 'gu');
    for (const m of action.matchAll(loose)) {
      const before = action.slice(0, m.index!);
      const sentenceStart = before.trim() === '' || /[.!?]\s*$/.test(before);
      const value = trimName(sentenceStart && !m[0].startsWith('@') ? m[0].split(/\s+/).slice(1).join(' ') : m[0]);
      if (!value || COMPOUND_WORDS.has(value.toLowerCase())) continue;
      const start = m.index! + m[0].indexOf(value);
      if (add('person', value, start, start + value.length)) break;
    }
  }
  return spans.sort((a, b) => a.start - b.start);
}

/** "Priya Nair's" → "Priya Nair"; words that are not names are dropped from the ends. */
function trimName(raw: string): string {
  const words = raw.replace(/['\u2019]s$/, '').split(/\s+/);
  while (words.length && NOT_A_NAME.has(words[0]!)) words.shift();
  while (words.length && NOT_A_NAME.has(words[words.length - 1]!)) words.pop();
  return words.join(' ');
}

/** The first value of each slot. */
export function sentenceValues(action: string): SentenceValues {
  const values: SentenceValues = {};
  for (const span of sentenceSpans(action)) if (values[span.slot] === undefined) values[span.slot] = span.value;
  return values;
}

/**
 * The action with each value replaced by its slot word (`v_text`, `v_person` …), for the router: the words
 * around the values say what to do, the values themselves are the request's data.
 */
export function withSlotWords(action: string, spans: SentenceSpan[] = sentenceSpans(action)): string {
  let out = '';
  let at = 0;
  for (const span of spans) {
    out += `${action.slice(at, span.start)} ${slotWord(span.slot)} `;
    at = span.end;
  }
  return out + action.slice(at);
}
