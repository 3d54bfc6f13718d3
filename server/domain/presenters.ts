import type { ConnectionSettings } from '../../contract/connection-health';
import type { RedirectUri } from '../../contract/redirect-uri-schemas';
import type {
  AgentRequest,
  Connection,
  ConnectionCheckResult,
  ConnectionDevice,
  Provider,
  ProviderDetail,
  UserAction,
} from '../../contract/schemas';
import type { WebhookDelivery, WebhookEndpoint, WebhookEventType } from '../../contract/webhook-schemas';
import { parseDevice } from '../browser/device-profile';
import type { ProviderDefinition } from '../providers/catalogue';
import { providerLogoUrl } from '../providers/provider';
import type { AgentRequestRecord, ConnectionRecord, RedirectUriRecord, WebhookDeliveryRecord, WebhookEndpointRecord } from '../store';
import { attemptSteps } from './attempt-steps';
import type { ConnectionSettingsView } from './connection-settings.service';

/**
 * Whitelist formatters (Plaid pattern): a response is built field by field from a record, so a sealed
 * session, a token hash or a lease owner can never leave by accident.
 */
const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function presentProvider(p: ProviderDefinition): Provider {
  return {
    providerId: p.providerId,
    name: p.name,
    slug: p.slug,
    category: p.category,
    environment: p.environment,
    homeUrl: p.homeUrl,
    loginUrl: p.loginUrl,
    allowedOrigins: p.allowedOrigins,
    identityProviders: p.identityProviders ?? [],
    logo: providerLogoUrl(p),
    source: p.source ?? 'built-in',
  };
}

export function presentProviderDetail(v: { provider: ProviderDefinition; declaration: Record<string, unknown> | null }): ProviderDetail {
  return { ...presentProvider(v.provider), declaration: v.declaration };
}

/** The device as the API shows it (the stored one, checked: a row this version cannot read shows none). */
function presentDevice(value: ConnectionRecord['device']): ConnectionDevice | null {
  const d = parseDevice(value);
  return d
    ? {
        platform: d.platform,
        userAgent: d.userAgent,
        browserVersion: d.browserVersion,
        locale: d.locale,
        acceptLanguage: d.acceptLanguage,
        timezoneId: d.timezoneId,
        viewport: { width: d.viewport.width, height: d.viewport.height },
        screen: { width: d.screen.width, height: d.screen.height },
        // The seed of its noise stays inside: a site sees what it draws, and nothing gains from the number.
        ...(d.deviceScaleFactor !== undefined ? { deviceScaleFactor: d.deviceScaleFactor } : {}),
      }
    : null;
}

export function presentConnection(c: ConnectionRecord): Connection {
  return {
    connectionId: c.id,
    providerId: c.providerId,
    clientUserId: c.clientUserId,
    environment: c.environment,
    status: c.status,
    device: presentDevice(c.device),
    // The label only: the proxy's address and credentials stay sealed.
    exit: c.sealedExitProxy && c.exitProxyLabel ? { type: 'proxy', label: c.exitProxyLabel } : { type: 'direct' },
    // Its public face only, and only while the sealed credential is there: the private key never leaves the vault.
    passkey: c.sealedPasskey && c.passkey ? { ...c.passkey } : null,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
    lastUsedAt: iso(c.lastUsedAt),
    revokedAt: iso(c.revokedAt),
    lastCheckedAt: c.lastCheckedAt && c.lastCheckOutcome ? c.lastCheckedAt.toISOString() : null,
    lastCheckOutcome: c.lastCheckedAt && c.lastCheckOutcome ? c.lastCheckOutcome : null,
  };
}

/** A check's answer: its outcome and the connection after it (the reason stays in the logs: it may name page details). */
export function presentConnectionCheck(r: {
  outcome: ConnectionCheckResult['outcome'];
  checkedAt: Date;
  durationMs: number;
  connection: ConnectionRecord;
}): ConnectionCheckResult {
  return {
    outcome: r.outcome,
    checkedAt: r.checkedAt.toISOString(),
    durationMs: r.durationMs,
    connection: presentConnection(r.connection),
  };
}

export function presentConnectionSettings(v: ConnectionSettingsView): ConnectionSettings {
  return {
    healthCheck: {
      intervalSeconds: v.record?.healthCheckIntervalSeconds ?? null,
      providers: { ...(v.record?.healthCheckProviders ?? {}) },
      defaultIntervalSeconds: v.defaultIntervalSeconds,
    },
    signedAgent: { enabled: v.record?.signedAgent === true, directoryUrl: v.directoryUrl },
    updatedAt: iso(v.record?.updatedAt ?? null),
  };
}

/** `userAction`: the opened user action of a NEEDS_USER request (user-action-seal.ts); null otherwise. */
export function presentAgentRequest(r: AgentRequestRecord, userAction: UserAction | null = null): AgentRequest {
  return {
    requestId: r.id,
    status: r.status,
    connectionId: r.connectionId,
    providerId: r.providerId,
    environment: r.environment,
    action: r.action,
    startingUrl: r.startingUrl,
    parameters: r.parameters,
    responseFormat: r.responseFormat,
    timeoutMs: r.timeoutMs,
    mode: r.mode,
    approval: r.approval ?? null,
    playbook: r.playbook ?? null,
    result: r.result ?? null,
    error: r.error ?? null,
    userAction: r.status === 'NEEDS_USER' ? userAction : null,
    warnings: (r.warnings ?? []).map((w) => ({ code: w.code, message: w.message, ...(w.path === undefined ? {} : { path: w.path }) })),
    createdAt: r.createdAt.toISOString(),
    startedAt: iso(r.startedAt),
    completedAt: iso(r.completedAt),
    executionTimeMs: r.executionTimeMs,
    method: r.method ?? null,
    attempts: r.attempts,
    trace: [...attemptSteps(r), ...(r.trace ?? [])].map((step) => ({
      tool: step.tool,
      ...(step.target === undefined ? {} : { target: step.target }),
      url: step.url,
      durationMs: Math.round(step.durationMs),
      outcome: step.outcome,
      ...(step.error === undefined ? {} : { error: step.error }),
      ...(step.screenshot === undefined ? {} : { screenshot: step.screenshot }),
    })),
    modelUsage: r.modelUsage
      ? { calls: r.modelUsage.calls, promptTokens: r.modelUsage.promptTokens, completionTokens: r.modelUsage.completionTokens }
      : null,
  };
}

/** Never the sealed secret: it is shown once, by the create and rotate answers only. */
export function presentWebhookEndpoint(e: WebhookEndpointRecord): WebhookEndpoint {
  return {
    webhookId: e.id,
    url: e.url,
    events: e.events as WebhookEventType[],
    description: e.description,
    enabled: e.enabled,
    environment: e.environment,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}

export function presentWebhookDelivery(d: WebhookDeliveryRecord): WebhookDelivery {
  return {
    deliveryId: d.id,
    webhookId: d.endpointId,
    eventId: d.eventId,
    eventType: d.eventType as WebhookEventType,
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: d.status === 'PENDING' ? iso(d.nextAttemptAt) : null,
    lastResponseStatus: d.lastResponseStatus,
    lastError: d.lastError,
    createdAt: d.createdAt.toISOString(),
    completedAt: iso(d.completedAt),
    attemptLog: (d.attemptLog ?? []).map((a) => ({
      attempt: a.attempt,
      at: a.at,
      responseStatus: a.responseStatus,
      error: a.error,
      durationMs: a.durationMs,
    })),
  };
}

export function presentRedirectUri(r: RedirectUriRecord): RedirectUri {
  return { redirectUriId: r.id, uri: r.uri, environment: r.environment, createdAt: r.createdAt.toISOString() };
}
