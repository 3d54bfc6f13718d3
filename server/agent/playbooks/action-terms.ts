import { rewritePhrases } from './action-phrases';
import { type SentenceSlot, slotWord, withSlotWords } from './sentence-values';

/**
 * The words of an action as the router compares them: values replaced by slot words (sentence-values.ts),
 * lower case, filler words dropped, a light English stemmer (plural, -ing, -ed, final e) and a few synonyms
 * of the sandbox sites' nouns. Deliberately small and predictable: a request matches a playbook because
 * it shares the words that matter with one of its examples, and anyone can see which.
 */
const STOPWORDS = new Set(
  (
    'a an the please pls kindly can could would will you i me to of in on at by from and then also is are be ' +
    'it its this that these those do does did some any just now what which whats there here so as up out ' +
    'have has had am was were want wanna like_to need let us for our your yours into over ' +
    'orbit forgehub lumen site go all every most recent latest newest last first top ' +
    // filler of everyday speech: "again", "today", "these days", "for me", "I've", "the stuff on my feed"
    'again today currently right days stuff things everything anything anyone anybody ve ll re don been being ' +
    // how recent is no request of its own: "recently" and "lately", like "recent" and "latest" above
    'recently lately newly ' +
    // the bound of a quantity ("no more than 5", "only 3") is read with the number (sentence-values.ts)
    'no more than only max maximum'
  ).split(' '),
);

/**
 * Different words people use for the same thing on these sites (applied before stemming). The verbs of
 * reading are one word, and so are the verbs of making something: "show my feed" and "list my feed" are
 * the same request, and the noun decides between "create a post" and "create a repository".
 */
const SYNONYMS: Record<string, string> = {
  repo: 'repository',
  repos: 'repositories',
  dm: 'message',
  dms: 'messages',
  pm: 'message',
  pms: 'messages',
  inbox: 'messages',
  timeline: 'feed',
  newsfeed: 'feed',
  tweet: 'post',
  tweets: 'posts',
  updates: 'posts',
  projects: 'repositories',
  problem: 'issue',
  problems: 'issues',
  chats: 'messages',
  conversation: 'messages',
  conversations: 'messages',
  threads: 'messages',
  sent: 'send',
  mine: 'my',
  // "share with everyone" is "share with my network"
  everyone: 'network',
  everybody: 'network',
  fresh: 'new',
  // "Have I received any messages?", "How many stars has it got?": in a question, what one got is read.
  received: 'read',
  receive: 'read',
  got: 'read',
  gotten: 'read',
  audience: 'followers',
  fans: 'followers',
  bio: 'profile',
  account: 'profile',
  favourite: 'star',
  favorite: 'star',
  favourited: 'starred',
  favorited: 'starred',
  queue: 'list',
  saved: 'save',
  bookmarked: 'save',
  bookmarks: 'save',
  stargazers: 'stars',
  alerts: 'notifications',
  bugs: 'issues',
  bug: 'issue',
  ticket: 'issue',
  tickets: 'issues',
  ...Object.fromEntries(
    'read show list get fetch display view see check find look return tell scrape extract load browse summarize summarise enumerate describe skim scan review inspect peek'
      .split(' ')
      .map((verb) => [verb, 'read']),
  ),
  ...Object.fromEntries(
    'create make write compose draft publish start initialize initialise init setup'.split(' ').map((verb) => [verb, 'create']),
  ),
};

const SLOTS: (SentenceSlot | 'topic')[] = ['text', 'name', 'person', 'repository', 'number', 'count', 'topic'];
export const SLOT_WORDS: ReadonlySet<string> = new Set(SLOTS.map(slotWord));

/** A light stemmer: enough to make "posts", "posted" and "posting" one word, and "repositories" "repository". */
export function stem(word: string): string {
  if (SLOT_WORDS.has(word) || word.length <= 3) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith('ing') && w.length > 5) w = w.slice(0, -3);
  else if (w.endsWith('ed') && w.length > 4) w = w.slice(0, -2);
  if (w.endsWith('e') && w.length > 3) w = w.slice(0, -1);
  if (/([bdfgmnprt])\1$/.test(w)) w = w.slice(0, -1);
  return w;
}

/** The canonical verb of reading: an action that starts with it asks to read, never to change anything. */
export const READ_VERB = 'read';
/** The canonical verb of making something ("create", "write", "publish" …). */
export const CREATE_VERB = 'creat';

/** The action's words as the router compares them, in order (duplicates kept; the caller decides). */
export function actionTerms(action: string): string[] {
  const plain = withSlotWords(action.replace(/[\u2018\u2019]/g, "'"))
    .toLowerCase()
    .replace(/'/g, ' ')
    // What Orbit says about me is my profile.
    .replace(/\babout\s+(?:me|myself)\b/g, ' profile ')
    // What a post or message is about is its content, not the request: one slot word, like a value
    // ("tell me about openfoundry/atlas" is about the repository itself, the request's context).
    .replace(/\babout\b(?!\s+v_(?:repository|person)\s*[?.!]*\s*$)[^.?!]*/g, ` ${slotWord('topic')} `)
    // "… with their star counts" names fields of the result (the responseFormat's business), not the request.
    .replace(
      /\b(?:with|and|including)\s+(?:their|its|his|her|the)\s+[^.?!,;]*?(?:counts?|numbers?|names?|descriptions?|urls?|links?|dates?|times?|details?|stats?)\b/g,
      ' ',
    )
    .replace(/\band\s+(?:tell|show|give)\s+me\s+(?:its|their|his|her|the)\s+[^.?!,;]*/g, ' ');
  // Then the phrases people use for the same request (action-phrases.ts), once the result's fields are gone, and
  // before "of my repo" turns into context ("get rid of my repo", "remove my star from this repo").
  const text = rewritePhrases(plain)
    // "in this repository" names where, like an owner/name would: the repository is context, not the request.
    .replace(
      /\b(?:in|on|of|to|for|from)\s+(?:this|that|the|my)\s+(?:[a-z]+\s+)?(?:repository|repo|project)\b/g,
      ` ${slotWord('repository')} `,
    )
    .replace(/\bset up\b/g, 'setup')
    .replace(/\b(?:the|as) follows?\b|\bthe following\b/g, ' ')
    .replace(/\blike to\b/g, 'like_to');
  // A question ("How many followers do I have?", "Which repos …", "Any open bugs in …?") asks to read.
  const question =
    /^\W*(?:what|which|how|who|whose|where|when)\b/.test(text) ||
    /^\W*(?:has|have|had|do|does|did|is|are|was|were|any|anything|anyone|anybody)\b[^?]*\?\s*$/.test(text) ||
    // A noun and a clause that describes it asks for those things: "Issues I filed", "Repos that I own".
    /^\W*(?:(?:my|the|all)\s+)?[a-z]+s\s+(?:that\s+|which\s+)?i\b/.test(text);
  const terms: string[] = question ? [READ_VERB] : [];
  for (const raw of text.split(/[^\p{L}\p{N}_]+/u)) {
    // Digits left over are not values the rules understood; single letters are the rest of "Priya's", "I'll".
    if (raw.length < 2 || /^\d+$/.test(raw)) continue;
    if (STOPWORDS.has(raw)) continue;
    const term = stem(SYNONYMS[raw] ?? raw);
    if (term !== terms[terms.length - 1]) terms.push(term);
  }
  return terms;
}
