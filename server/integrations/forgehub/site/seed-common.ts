import type { SeedDoc } from '../../../sandbox/kit/site';

/** Ages in the seed are in minutes before the tenant is seeded. */
export const HOUR = 60;
export const DAY = 24 * HOUR;

/** Appends one document of a kind to the seed (seed.ts collects them, in order). */
export type AddDoc = <T extends Record<string, unknown>>(kind: string, data: T, ageMinutes: number) => void;

/** A seed under construction: its documents, and the function that appends to them. */
export function seedDocs(): { out: SeedDoc[]; add: AddDoc } {
  const out: SeedDoc[] = [];
  return { out, add: (kind, data, ageMinutes) => void out.push({ kind, data, ageMinutes }) };
}
