import stem from 'wink-porter2-stemmer';

/**
 * Result fields matched by what they say, for a responseFormat key that no field is named (shape.ts tries names,
 * aliases and the common meanings first). The caller's key and its description (`total: "integer - how many
 * issues are open"`) are compared with each field's name and the description the playbook declares for it in
 * its resultFields (`count: "integer - how many were listed"`): shared words, and shared word pairs, which keep
 * "people who follow me" (followers) apart from "people I follow" (following). The best field wins only when
 * it shares a word and no other field comes as close; the caller still gets only a value of the leaf's type.
 *
 * Words are stemmed with Porter2 (wink-porter2-stemmer): descriptions are free prose ("located" / "location"),
 * unlike the short requests the router's light stemmer is tuned for (action-terms.ts).
 */
export interface DescribedField {
  name: string;
  /** The text after " - " in its resultFields leaf, if any. */
  description?: string;
}

/** Words people use for the same result field (applied before stemming, to both sides). */
const FIELD_SYNONYMS: Record<string, string> = {
  fans: 'followers',
  tagline: 'headline',
  bio: 'about',
  handle: 'username',
  login: 'username',
  link: 'url',
  links: 'url',
  address: 'url',
  permalink: 'url',
  href: 'url',
  popularity: 'stars',
  stargazers: 'stars',
  hearts: 'likes',
  heart: 'like',
  replies: 'comments',
  reply: 'comment',
  shares: 'reposts',
  share: 'repost',
  heading: 'title',
  reporter: 'author',
  writer: 'author',
  creator: 'author',
  poster: 'author',
  body: 'text',
  content: 'text',
  message: 'text',
  summary: 'description',
  status: 'state',
  tags: 'labels',
  audience: 'visibility',
  repo: 'repository',
  repos: 'repositories',
  // The asker says "I", "me", "my"; a playbook describes "the user".
  i: 'user',
  me: 'user',
  my: 'user',
  mine: 'user',
  myself: 'user',
};

/** A key that is one of these words alone means that field ("to" → the recipient). */
const WHOLE_KEY: Record<string, string> = { to: 'recipient' };

const STOP = new Set(
  'the a an of its it is was were are be been has have had this that these those in on at by for from with as and or so do does there here now afterwards afterward currently'.split(
    ' ',
  ),
);

/** A name or a description as words: camelCase and snake_case split, "how many" and "number of" one word. */
export function resultWords(text: string): string[] {
  const spaced = text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/\bhow\s+many\b|\bnumber\s+of\b|\bcount\s+of\b|\btotal\s+number\b/g, ' count ');
  const words: string[] = [];
  for (const raw of spaced.split(/[^a-z0-9]+/)) {
    if (!raw) continue;
    const word = FIELD_SYNONYMS[raw] ?? raw;
    if (STOP.has(word)) continue;
    words.push(stem(word));
  }
  return words;
}

const pairs = (words: string[]) => new Set(words.slice(1).map((w, i) => `${words[i]} ${w}`));

/** Question words name no field by themselves ("who - the author"): as a key they weigh as a description's words. */
const WEAK_KEY = new Set(['who', 'what', 'when', 'where', 'why', 'which', 'how']);

/**
 * How much a word the caller wrote says about a field: a word of the caller's key found in the field's name says
 * most, then a word of the key found in its description, then a word of the caller's description in the name,
 * then in the description.
 */
const WEIGHT = { keyInName: 3, keyInDescription: 2, askedInName: 1.5, askedInDescription: 1 } as const;
/** Each word of a field's name the caller did not write: of two fields that say as much, the plainer wins. */
const UNASKED_NAME_WORD = 0.3;
/** Each shared pair of neighbouring words ("people follow" / "user follow"). */
const PAIR = 0.5;
const MIN_SCORE = 1;
const MIN_LEAD = 0.25;

/** The field that `key` (with its description) means, among `fields`; undefined when none clearly does. */
export function fieldByMeaning(key: string, description: string | undefined, fields: readonly DescribedField[]): string | undefined {
  const whole = WHOLE_KEY[key.toLowerCase()];
  if (whole) return fields.find((f) => f.name.toLowerCase() === whole)?.name;
  const keyList = resultWords(key);
  const askedList = resultWords(description ?? '');
  const keyWords = new Set(keyList.filter((w) => !WEAK_KEY.has(w)));
  const askedWords = new Set([...askedList, ...keyList.filter((w) => WEAK_KEY.has(w))]);
  const askedPairs = pairs([...keyList, ...askedList]);
  const scored = fields
    .map((f) => {
      const nameList = resultWords(f.name);
      const describedList = resultWords(f.description ?? '');
      const name = new Set(nameList);
      const described = new Set(describedList);
      let score = 0;
      for (const w of new Set([...keyWords, ...askedWords])) {
        const fromKey = keyWords.has(w);
        if (name.has(w)) score += fromKey ? WEIGHT.keyInName : WEIGHT.askedInName;
        else if (described.has(w)) score += fromKey ? WEIGHT.keyInDescription : WEIGHT.askedInDescription;
      }
      const fieldPairs = pairs([...nameList, ...describedList]);
      score += PAIR * [...askedPairs].filter((p) => fieldPairs.has(p)).length;
      score -= UNASKED_NAME_WORD * [...name].filter((w) => !keyWords.has(w) && !askedWords.has(w)).length;
      return { name: f.name, score };
    })
    .sort((a, b) => b.score - a.score);
  const [best, second] = scored;
  if (!best || best.score < MIN_SCORE) return undefined;
  if (second && best.score - second.score < MIN_LEAD) return undefined;
  return best.name;
}
