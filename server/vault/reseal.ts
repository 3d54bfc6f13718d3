import type { Vault } from './vault';

/**
 * The one re-sealing walk that every holder of sealed values (connections, webhook endpoints …) uses after
 * a key rotation: pages through its rows, re-seals each value not under the primary key, and writes it
 * back with a compare-and-set so a value sealed anew meanwhile is never overwritten. Idempotent.
 */
export interface ResealReport {
  /** Sealed values looked at. */
  scanned: number;
  /** Re-sealed with the primary key. */
  resealed: number;
  /** Already sealed with the primary key (nothing to do). */
  current: number;
  /** Changed by someone else meanwhile (already sealed anew). */
  skipped: number;
  /** Could not be opened with any key: left as they are. */
  failed: number;
}

export const emptyResealReport = (): ResealReport => ({ scanned: 0, resealed: 0, current: 0, skipped: 0, failed: 0 });

export interface SealedValue {
  value: string | null;
  /** Associated data the value was sealed with. */
  aad: string;
  /** Writes `next` only if the stored value is still the one read; true when written. */
  replace(next: string): Promise<boolean>;
}

/** One page of rows after the cursor `after` (row ids ascending), each with its sealed values. */
export type SealedPages = (after: string, limit: number) => Promise<{ id: string; values: SealedValue[] }[]>;

export async function resealAll(vault: Vault, pages: SealedPages, batchSize = 200): Promise<ResealReport> {
  const report = emptyResealReport();
  const primary = vault.primaryKeyId;
  for (let after = ''; ;) {
    const batch = await pages(after, batchSize);
    if (batch.length === 0) return report;
    for (const { value, aad, replace } of batch.flatMap((row) => row.values)) {
      if (!value) continue;
      report.scanned += 1;
      if (vault.keyIdOf(value) === primary) {
        report.current += 1;
        continue;
      }
      let plaintext: string;
      try {
        plaintext = vault.open(value, aad);
      } catch {
        report.failed += 1;
        continue;
      }
      if (await replace(vault.seal(plaintext, aad))) report.resealed += 1;
      else report.skipped += 1;
    }
    after = batch[batch.length - 1].id;
  }
}

/** How many stored sealed values each key id protects (for `vault status`). */
export async function sealedValuesByKey(vault: Vault, pages: SealedPages): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (let after = ''; ;) {
    const batch = await pages(after, 500);
    if (batch.length === 0) return counts;
    for (const { value } of batch.flatMap((row) => row.values)) {
      if (!value) continue;
      const id = vault.keyIdOf(value) ?? '(not sealed)';
      counts[id] = (counts[id] ?? 0) + 1;
    }
    after = batch[batch.length - 1].id;
  }
}
