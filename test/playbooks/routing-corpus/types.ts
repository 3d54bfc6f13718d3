/**
 * A request as someone writes it to a sandbox provider, and what routing without a model must do with it.
 * Shared by the held-out set (held-out.ts: written before the router was tuned, never tuned on), the dev set
 * (dev.ts: free to tune on) and their evaluation (evaluate.ts, bench/routing.bench.ts, routing-held-out.test.ts).
 */
export type RoutingCategory =
  /** Everyday wording of a request the catalogue covers ("bring up …", "what's new in …", "how popular is …"). */
  | 'paraphrase'
  /** One of a pair of opposites (follow / unfollow, open / close); the other side may or may not exist. */
  | 'opposite'
  /** Two actions over the same nouns ("issues" / "my issues"): the words that differ decide. */
  | 'close-actions'
  /** A verb frame that carries the value ("let X know that …", "ping X: …"). */
  | 'verb-frame'
  /** A list limit written in words ("at most five", "my 3 latest"). */
  | 'quantity'
  /** A responseFormat whose field names the asker chose ("total - how many …"). */
  | 'result-field'
  /** Must not run: a write in read mode, an action no playbook does, an ambiguous request. */
  | 'must-not-run';

export interface RoutingCase {
  provider: 'orbit' | 'forgehub' | 'lumen';
  action: string;
  category: RoutingCategory;
  /** The playbook that must run, or null: nothing may run. */
  expect: string | null;
  mode?: 'read' | 'read_write';
  /** Parameters the route must fill from the action (a subset of what it fills). */
  params?: Record<string, unknown>;
  responseFormat?: Record<string, unknown>;
  /**
   * Which of the playbook's result fields (its resultFields) must fill which key of the format: `total` → `count`;
   * `posts[].who` → `author` for the items of a list.
   */
  fields?: Record<string, string>;
}
