import { describeElement, type ObservedElement, type PageSnapshot } from './';

/**
 * How a trajectory names an element: by role, accessible name and the labelled region around it, never by the
 * observation's index (which differs between runs). The tools describe their recorded steps with it, the replay
 * finds the element again by it.
 */
export interface ElementDescriptor {
  role: string;
  /** Accessible name as observed (string parameter values appear as their placeholders). */
  name: string;
  scope: string | null;
  tag: string;
  /** Position among the elements with the same role, name and scope, and how many there were. */
  nth: number;
  count: number;
}

function sameElement(a: Pick<ObservedElement, 'role' | 'name' | 'scope'>, b: Pick<ElementDescriptor, 'role' | 'name' | 'scope'>) {
  return a.role === b.role && a.name === b.name && (a.scope ?? null) === (b.scope ?? null);
}

/** The robust description of an observed element. */
export function descriptorOf(el: ObservedElement, snapshot: PageSnapshot): ElementDescriptor {
  const same = snapshot.elements.filter((e) => sameElement(e, el));
  return {
    role: el.role,
    name: el.name,
    scope: el.scope,
    tag: el.tag,
    nth: Math.max(
      0,
      same.findIndex((e) => e.index === el.index),
    ),
    count: same.length,
  };
}

export function describeDescriptor(d: ElementDescriptor): string {
  return `${describeElement(d)}${d.scope ? ` in ${d.scope}` : ''}${d.count > 1 ? ` (#${d.nth + 1} of ${d.count})` : ''}`;
}

/**
 * Finds a described element in a live snapshot: exactly one element with that role, name and scope, or, when
 * the recording saw several, the same number of them and the same position.
 */
export function resolveDescriptor(
  d: ElementDescriptor,
  snapshot: PageSnapshot,
): { ok: true; el: ObservedElement } | { ok: false; reason: string } {
  const same = snapshot.elements.filter((e) => sameElement(e, d));
  if (same.length === 0) return { ok: false, reason: `${describeDescriptor(d)} is not on the page` };
  if (d.count <= 1) {
    if (same.length > 1) return { ok: false, reason: `${describeDescriptor(d)} is no longer unique (${same.length} match)` };
    return { ok: true, el: same[0]! };
  }
  if (same.length !== d.count)
    return { ok: false, reason: `${describeDescriptor(d)}: ${same.length} elements match instead of ${d.count}` };
  return { ok: true, el: same[d.nth]! };
}
