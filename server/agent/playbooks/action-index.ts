import MiniSearch from 'minisearch';

import { actionTerms, CREATE_VERB, READ_VERB, SLOT_WORDS } from './action-terms';

/**
 * A ranked text search over one provider's playbooks (MiniSearch, BM25): each example request is a document,
 * and so is each description. The search finds and ranks the candidates; how sure the router may be is then
 * measured on the best matching example alone, as the IDF-weighted overlap of the two word sets (the
 * harmonic mean of how much of the action the example explains and how much of the example the action says).
 * An action whose words the examples do not explain (a verb no playbook knows, a person where none is
 * expected) scores low, whatever the BM25 rank, and is not routed. Descriptions only rank the "closest
 * actions" an error lists: their many words would otherwise explain nearly any action.
 */
export interface IndexedAction {
  name: string;
  description: string;
  examples: readonly string[];
  /** Whether it changes anything: an action that starts with a verb of reading ("show", "list" …) never matches one that does. */
  writes?: boolean;
  /** Slot words (action-terms.ts) of the values it takes from the sentence: data, neither for nor against it. */
  slots?: readonly string[];
}

export interface ActionScore {
  /** The playbook. */
  name: string;
  /** 0 … 1: how well its best example explains the action (the router needs ROUTING_THRESHOLD). */
  score: number;
  /** The example that explained it best (null when only the description matched). */
  example: string | null;
}

/** At this score an example explains the action well enough to run a playbook without asking anyone. */
export const ROUTING_THRESHOLD = 0.65;
/** Two playbooks this close to each other are a tie the router does not break by itself. */
export const AMBIGUITY_MARGIN = 0.03;
/** The verb (usually the first word) says what to do, so it weighs more than the words after it. */
const FIRST_TERM_BOOST = 1.5;
const UNEXPECTED_VALUE_WEIGHT = 2;
const GENERIC_VERB_WEIGHT = 0.5;
/** A word no example uses counts as if half a playbook used it: rarer than any known word, not infinitely so. */
const UNKNOWN_WORD_DF = 0.5;
/** Typos the search forgives in longer words, as a share of the word's letters. */
const FUZZY = 0.2;
/** How much weight the words that differ must put on one side of a tie to decide it (about one rare word). */
const MIN_DECIDING_WEIGHT = 1;

interface Doc {
  id: number;
  name: string;
  kind: 'example' | 'description';
  writes: boolean;
  text: string;
  terms: string[];
  slots: ReadonlySet<string>;
}

export class ActionIndex {
  private readonly docs: Doc[] = [];
  private readonly search: MiniSearch<Doc>;
  private readonly df = new Map<string, number>();
  private readonly playbookCount: number;
  /** Each playbook's words: those of its examples and the slot words of the values it takes. */
  private readonly vocabulary = new Map<string, ReadonlySet<string>>();

  /** The weight of a word only one playbook uses. */
  private readonly rareWeight: number;

  constructor(actions: readonly IndexedAction[]) {
    for (const a of actions) {
      const slots = new Set(a.slots ?? []);
      for (const text of a.examples) {
        const terms = unique(actionTerms(text)).filter((t) => !slots.has(t));
        this.docs.push({ id: this.docs.length, name: a.name, kind: 'example', writes: !!a.writes, text, terms, slots });
      }
      this.docs.push({
        id: this.docs.length,
        name: a.name,
        kind: 'description',
        writes: !!a.writes,
        text: a.description,
        terms: [],
        slots,
      });
    }
    // Document frequency over playbooks, not examples: a word every example of one playbook repeats is that
    // playbook's word, and says as much as a word one other playbook uses once.
    this.playbookCount = actions.length;
    for (const a of actions) this.vocabulary.set(a.name, new Set([...a.examples.flatMap(actionTerms), ...(a.slots ?? [])]));
    for (const a of actions) for (const t of new Set(a.examples.flatMap(actionTerms))) this.df.set(t, (this.df.get(t) ?? 0) + 1);
    this.rareWeight = Math.log(1 + (this.playbookCount - 1 + 0.5) / 1.5);
    this.search = new MiniSearch<Doc>({
      fields: ['text'],
      tokenize: actionTerms,
      processTerm: (term) => term,
      searchOptions: {
        // Typos in longer words only ("mesage"); short words are too alike ("star" / "start").
        fuzzy: (term) => (term.length >= 6 && !SLOT_WORDS.has(term) ? FUZZY : false),
        weights: { fuzzy: 0.8, prefix: 0 },
        prefix: false,
        boostDocument: (id) => (this.docs[id as number]?.kind === 'description' ? 0.5 : 1),
      },
    });
    this.search.addAll(this.docs);
  }

  /**
   * IDF over the playbooks. A word no example uses weighs a little more than the rarest one: it does not tell
   * the playbooks apart, but it is a part of the request that no example explains.
   */
  private weight(term: string, first: boolean): number {
    // The verb classes say little about which playbook: the noun after "show" or "create" decides.
    if (term === READ_VERB || term === CREATE_VERB) return GENERIC_VERB_WEIGHT;
    const n = this.playbookCount;
    const df = Math.max(UNKNOWN_WORD_DF, this.df.get(term) ?? 0);
    return Math.log(1 + (n - df + 0.5) / (df + 0.5)) * (first ? FIRST_TERM_BOOST : 1);
  }

  /** The playbooks ranked for `action`, best first: every one the search found, with its score. */
  rank(action: string): ActionScore[] {
    const queryTerms = unique(actionTerms(action));
    if (queryTerms.length === 0) return [];
    const asksToRead = queryTerms[0] === READ_VERB;
    const best = new Map<string, ActionScore & { bm25: number }>();
    for (const r of this.search.search(action)) {
      const doc = this.docs[r.id as number]!;
      const score =
        doc.kind === 'example' && !(asksToRead && doc.writes)
          ? this.overlap(
              queryTerms.filter((t) => !doc.slots.has(t)),
              doc.terms,
            )
          : 0;
      const seen = best.get(doc.name);
      if (!seen) best.set(doc.name, { name: doc.name, score, example: score > 0 ? doc.text : null, bm25: r.score });
      else {
        seen.bm25 += r.score;
        if (score > seen.score) Object.assign(seen, { score, example: doc.text });
      }
    }
    return [...best.values()]
      .sort((a, b) => b.score - a.score || b.bm25 - a.bm25)
      .map(({ name, score, example }) => ({ name, score: Math.round(score * 1000) / 1000, example }));
  }

  private overlap(query: string[], example: string[]): number {
    // Which words match is decided here, not by the search's fuzzy matching: a typo ("mesage") matches, an
    // opposite ("unfollow" / "follow", "unstar" / "star") never does, however few letters it differs by.
    const matchedQuery = new Set(query.filter((q) => example.some((e) => sameWord(q, e))));
    const matchedExample = new Set(example.filter((e) => query.some((q) => sameWord(q, e))));
    // A value the example does not take (a person, an issue number …) makes it another request: it weighs double,
    // and at least as much as a word only one playbook uses (values are common, a value out of place is not).
    const unexplained = (t: string) =>
      SLOT_WORDS.has(t) ? UNEXPECTED_VALUE_WEIGHT * Math.max(1, this.rareWeight / this.weight(t, false)) : 1;
    const sum = (terms: string[], hit: (t: string) => boolean, miss: (t: string) => number) =>
      terms.reduce((acc, t, i) => acc + this.weight(t, i === 0) * (hit(t) ? 1 : miss(t)), 0);
    const explained = (terms: string[], hit: (t: string) => boolean) => sum(terms, hit, () => 0);
    if (query.length === 0 || example.length === 0) return 0;
    const ofQuery = explained(query, (t) => matchedQuery.has(t)) / sum(query, (t) => matchedQuery.has(t), unexplained);
    const ofExample =
      explained(example, (t) => matchedExample.has(t)) /
      sum(
        example,
        () => true,
        () => 1,
      );
    // F-beta with beta 2: words of the action the example leaves unexplained cost more than words of the example
    // the action leaves out ("Star openfoundry/atlas" is a fine match for "Star this repository").
    const b2 = 4;
    return ofQuery + ofExample === 0 ? 0 : ((1 + b2) * ofQuery * ofExample) / (b2 * ofExample + ofQuery);
  }

  /**
   * Breaks a tie between two playbooks by the words that differ: the action's words that one playbook's
   * examples use and the other's never do ("my" in "my issues", a repository value one takes and the other
   * does not). Null when those words do not favour one of them.
   */
  decide(action: string, a: string, b: string): string | null {
    const va = this.vocabulary.get(a);
    const vb = this.vocabulary.get(b);
    if (!va || !vb) return null;
    const query = unique(actionTerms(action));
    const evidence = (own: ReadonlySet<string>, other: ReadonlySet<string>) =>
      query.reduce((acc, t, i) => acc + (own.has(t) && !other.has(t) ? this.weight(t, i === 0) : 0), 0);
    const ea = evidence(va, vb);
    const eb = evidence(vb, va);
    if (Math.abs(ea - eb) < MIN_DECIDING_WEIGHT) return null;
    return ea > eb ? a : b;
  }
}

/** Negation prefixes: a word with one is the opposite of the word without it, never a typo of it. */
const NEGATION = /^(?:un|re|de|dis|non)/;
const opposites = (a: string, b: string) =>
  (NEGATION.test(a) && a.replace(NEGATION, '') === b) || (NEGATION.test(b) && b.replace(NEGATION, '') === a);

/** The same word, or a typo of it in a longer word ("mesage"): at most one edit in 6 letters, two from 10. */
export function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  if (a.length < 6 || SLOT_WORDS.has(a) || SLOT_WORDS.has(b) || opposites(a, b)) return false;
  return editDistance(a, b, Math.round(a.length * FUZZY)) <= Math.round(a.length * FUZZY);
}

/** Levenshtein distance, stopping early once it exceeds `max`. */
function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      row.push(v);
      best = Math.min(best, v);
    }
    if (best > max) return max + 1;
    prev = row;
  }
  return prev[b.length]!;
}

const unique = (terms: string[]) => [...new Set(terms)];
