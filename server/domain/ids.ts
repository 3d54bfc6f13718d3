import { randomBytes } from 'node:crypto';

/** Stripe-style prefixed ids: the prefix says what an id names when it turns up in a log or a ticket. */
export type IdPrefix = 'org' | 'conn' | 'areq' | 'ltok' | 'ptok' | 'atok' | 'req' | 'lses' | 'whk' | 'evt' | 'whdl';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}
