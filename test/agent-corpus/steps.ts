/**
 * A corpus task's steps, written the way a person would tell someone else what to do on a page:
 *
 *   hover 'Products'
 *   click 'Laptops'
 *   click 'Add to cart' in 'Aurora 14'               (the one that follows 'Aurora 14' in reading order)
 *   click 'Next page' until 'INV-1024' is shown
 *   expand 'Reports'                                 (a tree item, disclosure or menu: click it, or the expander
 *                                                     listed beside it, until it says it is expanded)
 *   type '07/18/2025' into 'Departure date'
 *   select 'Central European Time (Berlin)' in 'Time zone'
 *   press 'Escape'
 *   switch to tab 'Q3 2025 revenue report'
 *   close tab
 *   read price as /\$[\d,]+\.\d\d/ near 'Nimbus 13'   (first match at or after the line naming 'Nimbus 13'; group 1 if any)
 *   read language from the value of 'Language'
 *   done                                             (with every value read so far as the result)
 *
 * Parsed up front, so a typo in a task fails at once rather than in the middle of a browser run.
 */
export type Step =
  | { kind: 'hover'; label: string; within?: string }
  | { kind: 'click'; label: string; within?: string; until?: string }
  | { kind: 'expand'; label: string; within?: string }
  | { kind: 'type'; text: string; label: string; within?: string }
  | { kind: 'select'; option: string; label: string }
  | { kind: 'press'; key: string }
  | { kind: 'switch_tab'; title: string }
  | { kind: 'close_tab' }
  | { kind: 'read'; key: string; pattern: RegExp; near?: string }
  | { kind: 'read_value'; key: string; label: string }
  | { kind: 'done' };

/** A step and the words it was given in (`said`). */
export type ParsedStep = Step & { said: string };

const Q = `'([^']+)'`;
const GRAMMAR: [RegExp, (m: RegExpExecArray) => Step][] = [
  [new RegExp(`^hover ${Q}(?: in ${Q})?$`), (m) => ({ kind: 'hover', label: m[1]!, within: m[2] })],
  [new RegExp(`^click ${Q}(?: in ${Q})?(?: until ${Q} is shown)?$`), (m) => ({ kind: 'click', label: m[1]!, within: m[2], until: m[3] })],
  [new RegExp(`^expand ${Q}(?: in ${Q})?$`), (m) => ({ kind: 'expand', label: m[1]!, within: m[2] })],
  [new RegExp(`^type ${Q} into ${Q}(?: in ${Q})?$`), (m) => ({ kind: 'type', text: m[1]!, label: m[2]!, within: m[3] })],
  [new RegExp(`^select ${Q} in ${Q}$`), (m) => ({ kind: 'select', option: m[1]!, label: m[2]! })],
  [new RegExp(`^press ${Q}$`), (m) => ({ kind: 'press', key: m[1]! })],
  [new RegExp(`^switch to tab ${Q}$`), (m) => ({ kind: 'switch_tab', title: m[1]! })],
  [/^close (?:the )?tab$/, () => ({ kind: 'close_tab' })],
  [
    new RegExp(`^read (\\w+) as /(.+)/([imsu]*)(?: near ${Q})?$`),
    (m) => ({ kind: 'read', key: m[1]!, pattern: new RegExp(m[2]!, m[3]), near: m[4] }),
  ],
  [new RegExp(`^read (\\w+) from the value of ${Q}$`), (m) => ({ kind: 'read_value', key: m[1]!, label: m[2]! })],
  [/^done$/, () => ({ kind: 'done' })],
];

export function parseStep(text: string): ParsedStep {
  for (const [re, build] of GRAMMAR) {
    const m = re.exec(text.trim());
    if (m) return { ...build(m), said: text };
  }
  throw new Error(`corpus step not understood: ${JSON.stringify(text)}`);
}

export function parseSteps(texts: readonly string[]): ParsedStep[] {
  const steps = texts.map(parseStep);
  if (steps[steps.length - 1]?.kind !== 'done') throw new Error(`a corpus task ends with "done": ${JSON.stringify(texts)}`);
  return steps;
}

/** The keys a task's steps read, in order (the result the task asks for). */
export const readKeys = (steps: readonly Step[]): string[] =>
  steps.flatMap((s) => (s.kind === 'read' || s.kind === 'read_value' ? [s.key] : []));
