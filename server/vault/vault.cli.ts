import { parseArgs } from 'node:util';

import type { AppConfig } from '../config';
import { AgentSigningKeys, DEFAULT_SIGNING_KEY_OVERLAP_MS } from '../domain/agent-signing-keys';
import { systemClock } from '../domain/clock';
import { ConnectionService } from '../domain/connections.service';
import { WebhookEndpointService } from '../domain/webhooks/webhook-endpoints.service';
import { Store } from '../store';
import { addPrimaryKey, loadVault } from './keyring';
import { emptyResealReport, type ResealReport } from './reseal';
import type { Vault } from './vault';

/**
 * `agentlink vault …`: key rotation for the sealed values: connection sessions and credentials, webhook signing secrets,
 * the deployment's Web Bot Auth key.
 *   vault rotate-key [--json]   key file (the default): add a new primary key, keep the old ones, re-seal everything.
 *                               AGENTLINK_ENCRYPTION_KEY: print how to rotate it, and re-seal with its first key.
 *   vault reseal [--json]       re-seal every value not yet sealed with the primary key (idempotent; resumes a rotation).
 *   vault status [--json]       key ids, and how many stored values each one protects.
 *   vault replace-signing-key [--overlap-hours 168] [--json]
 *                               a new Web Bot Auth signing key; the old one listed in the directory for the overlap.
 */
export const VAULT_USAGE = `  vault rotate-key [--json]                 new primary encryption key (key file), then re-seal every stored value
  vault reseal [--json]                     re-seal stored values with the primary key (idempotent)
  vault status [--json]                     key ids and how many stored values each protects
  vault replace-signing-key [--overlap-hours 168] [--json]
                                            a new Web Bot Auth signing key (the old one listed for the overlap)`;

type Out = (json: boolean, value: unknown, text: string) => void;

function reportLines(primary: string, r: ResealReport): string[] {
  return [
    `Re-sealed ${r.resealed} of ${r.scanned} stored value(s) with primary key ${primary}` +
      ` (${r.current} already current${r.skipped ? `, ${r.skipped} changed meanwhile` : ''}${r.failed ? `, ${r.failed} could NOT be opened with any key` : ''}).`,
  ];
}

/** Every kind of sealed value the store holds. */
function sealedHolders(store: Store, vault: Vault, config: AppConfig) {
  return [
    new ConnectionService(store, systemClock, vault, config),
    new WebhookEndpointService(store, systemClock, vault, config),
    new AgentSigningKeys(store, vault, systemClock),
  ];
}

async function sealedValuesByKey(store: Store, vault: Vault, config: AppConfig): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const holder of sealedHolders(store, vault, config)) {
    for (const [id, n] of Object.entries(await holder.sealedValuesByKey())) counts[id] = (counts[id] ?? 0) + n;
  }
  return counts;
}

async function reseal(config: AppConfig): Promise<{ primaryKeyId: string; report: ResealReport; byKey: Record<string, number> }> {
  const { vault } = loadVault(config);
  const store = await Store.open(config.database);
  try {
    const report = emptyResealReport();
    for (const holder of sealedHolders(store, vault, config)) {
      const part = await holder.resealAll();
      for (const k of Object.keys(report) as (keyof ResealReport)[]) report[k] += part[k];
    }
    return { primaryKeyId: vault.primaryKeyId, report, byKey: await sealedValuesByKey(store, vault, config) };
  } finally {
    await store.close();
  }
}

export async function vaultCommand(config: AppConfig, args: string[], out: Out, usage: (message: string) => Error): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, 'overlap-hours': { type: 'string' } },
  });
  const json = values.json ?? false;
  const sub = positionals[0];
  const fromEnv = !!config.encryptionKey;

  if (sub === 'rotate-key') {
    let added: { keyId: string; keyIds: string[]; file: string } | null = null;
    if (!fromEnv) added = addPrimaryKey(config.dataDir);
    const { primaryKeyId, report, byKey } = await reseal(config);
    const keyIds = added?.keyIds ?? loadVault(config).vault.keyIds;
    const text = fromEnv
      ? [
          'AGENTLINK_ENCRYPTION_KEY is set, so the keys live in your configuration. To rotate:',
          '  1. Make a new key:             openssl rand -base64 32',
          `  2. Put it first, keep the old: AGENTLINK_ENCRYPTION_KEY=<new id>:<new key>,${keyIds.map((id) => `${id}:<its key>`).join(',')}`,
          '     (ids are yours to choose: letters, digits, - and _; the first key seals, all of them open)',
          '  3. Restart AgentLink with the new value, then run `npm run agentlink -- vault rotate-key` again to re-seal',
          '     every stored value with the new key. Drop an old key only when `vault status` shows nothing left under it.',
          '',
          `Current keys: ${keyIds.join(', ')} (primary ${primaryKeyId}).`,
          ...reportLines(primaryKeyId, report),
        ]
      : [
          `Added key ${added!.keyId} to ${added!.file} as the primary key (kept: ${added!.keyIds.slice(1).join(', ')}).`,
          ...reportLines(primaryKeyId, report),
          'Restart running AgentLink processes so they seal with the new key.',
          'The Web Bot Auth signing key is unchanged (re-sealed with the others): sites keep verifying its signatures',
          '(`vault replace-signing-key` replaces it, the old one listed in the key directory for an overlap).',
        ];
    out(
      json,
      { source: fromEnv ? 'env' : 'file', newKeyId: added?.keyId ?? null, primaryKeyId, keyIds, ...report, byKey },
      text.join('\n'),
    );
    return;
  }
  if (sub === 'reseal') {
    const { primaryKeyId, report, byKey } = await reseal(config);
    out(json, { primaryKeyId, ...report, byKey }, reportLines(primaryKeyId, report).join('\n'));
    return;
  }
  if (sub === 'replace-signing-key') {
    const hours = values['overlap-hours'] === undefined ? DEFAULT_SIGNING_KEY_OVERLAP_MS / 3600_000 : Number(values['overlap-hours']);
    // At least the directory's cache life (5 minutes), at most a year.
    if (!Number.isFinite(hours) || hours < 0.1 || hours > 8760) throw usage('--overlap-hours: a number of hours from 0.1 to 8760');
    const { vault } = loadVault(config);
    const store = await Store.open(config.database);
    try {
      const r = await new AgentSigningKeys(store, vault, systemClock).replace(hours * 3600_000);
      const text = [
        `The Web Bot Auth key ${r.keyid} signs from now on (running processes take it within a minute).`,
        `The key it replaced, ${r.retiredKeyid}, stays in the key directory until ${r.listedUntil.toISOString()}, then drops out.`,
      ];
      out(json, { keyid: r.keyid, retiredKeyid: r.retiredKeyid, listedUntil: r.listedUntil.toISOString() }, text.join('\n'));
    } finally {
      await store.close();
    }
    return;
  }
  if (sub === 'status') {
    const { vault } = loadVault(config);
    const store = await Store.open(config.database);
    try {
      const byKey = await sealedValuesByKey(store, vault, config);
      const lines = [
        `Keys (${fromEnv ? 'AGENTLINK_ENCRYPTION_KEY' : 'key file'}): ${vault.keyIds.join(', ')}; primary ${vault.primaryKeyId}`,
        ...Object.entries(byKey).map(([id, n]) => `  ${id}: ${n} stored value(s)${vault.keyIds.includes(id) ? '' : '  (key missing!)'}`),
      ];
      out(json, { source: fromEnv ? 'env' : 'file', primaryKeyId: vault.primaryKeyId, keyIds: vault.keyIds, byKey }, lines.join('\n'));
    } finally {
      await store.close();
    }
    return;
  }
  throw usage(`usage: agentlink vault <command>\n${VAULT_USAGE}`);
}
