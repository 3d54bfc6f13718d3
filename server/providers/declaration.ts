import type { z } from 'zod';

import {
  type LoginRecipeDeclaration,
  type PatternDeclaration,
  type ProviderDeclaration,
  ProviderDeclarationSchema,
} from '../../contract/provider-declaration';
import { formatPath } from '../../contract/response-format';
import type { Environment } from '../config';
import { isLocalhostName, isNonPublicHost } from '../egress/addresses';
import { canonicalHostName } from '../egress/egress-policy';
import type { LoginRecipe, PageSignal, Target } from './login-recipe';
import type { ProviderDefinition } from './provider';

/** One refused field: its dotted path in the declaration (`login.form.username.label`) and why. */
export interface DeclarationIssue {
  path: string;
  message: string;
}

export type DeclarationCheck = { ok: true; declaration: ProviderDeclaration } | { ok: false; issues: DeclarationIssue[] };

/** Paths written the way the API writes them (`allowedOrigins[1]`, `login.form.username.label`). */
export function zodIssues(error: z.ZodError): DeclarationIssue[] {
  return error.issues.slice(0, 20).map((i) => {
    const path = formatPath('', i.path).replace(/^\./, '') || '(root)';
    return { path, message: i.code === 'unrecognized_keys' ? `unknown field(s): ${i.keys.join(', ')}` : i.message };
  });
}

/**
 * Validates a declaration whole: its shape (the contract's schema), then where it points. In production every
 * address it names must be public (no loopback, private ranges, link-local, .local/.internal names, private IP
 * literals): a provider declared by an organization must not turn the browser into a probe of our network. The
 * sandbox allows this machine's names and loopback, where the simulated sites and the tests live.
 */
export function checkProviderDeclaration(input: unknown, environment: Environment): DeclarationCheck {
  const parsed = ProviderDeclarationSchema.safeParse(input);
  if (!parsed.success) return { ok: false, issues: zodIssues(parsed.error) };
  const issues = addressIssues(parsed.data, environment);
  return issues.length ? { ok: false, issues } : { ok: true, declaration: parsed.data };
}

/**
 * The fields of a declaration that point at non-public addresses, for the environment. Each host is judged in the
 * form the egress policy will read it (WHATWG URL, then `canonicalHostName`), never as written: `2130706433`,
 * `0x7f000001`, `0177.0.0.1`, `127.1` and `[::ffff:7f00:1]` are all 127.0.0.1 to the browser. A host that WHATWG URL
 * cannot read at all (`1.2.3.4.5`, `999.1.1.1`) is refused in every environment: the egress policy could not be built.
 */
export function addressIssues(d: ProviderDeclaration, environment: Environment): DeclarationIssue[] {
  const issues: DeclarationIssue[] = [];
  const check = (path: string, entry: string, urlField: boolean) => {
    let shown = entry;
    let host: string;
    try {
      const read = declaredHost(entry, urlField);
      shown = read.shown;
      host = read.host;
    } catch {
      issues.push({ path, message: `${shown} is not a host name or address a browser can read` });
      return;
    }
    if (environment !== 'production' || !(isNonPublicHost(host) || isLocalhostName(host))) return;
    const asWritten = shown
      .replace(/^\*\./, '')
      .replace(/^\[|\]$/g, '')
      .replace(/\.$/, '')
      .toLowerCase();
    const reads = host === asWritten ? '' : ` (it reads as ${host})`;
    issues.push({ path, message: `${shown} is not a public address${reads} (refused in production)` });
  };
  check('homeUrl', d.homeUrl, true);
  check('loginUrl', d.loginUrl, true);
  d.allowedOrigins.forEach((o, i) => check(`allowedOrigins[${i}]`, o, false));
  (d.identityProviders ?? []).forEach((o, i) => check(`identityProviders[${i}]`, o, false));
  return issues;
}

/**
 * One declared host as written (`shown`, for messages) and exactly as EgressPolicy reads it (`host`: canonical, no
 * brackets): a URL's or a full origin's host name, a `*.` wildcard's domain, or a bare host name or IP literal.
 * Throws when WHATWG URL cannot read it.
 */
function declaredHost(entry: string, urlField: boolean): { shown: string; host: string } {
  if (urlField || entry.includes('://')) {
    const hostname = new URL(entry).hostname;
    return { shown: hostname, host: canonicalHostName(hostname.replace(/^\[|\]$/g, '')) };
  }
  return { shown: entry, host: canonicalHostName(entry.startsWith('*.') ? entry.slice(2) : entry) };
}

const compile = (p: PatternDeclaration) => new RegExp(p.pattern, p.flags ?? '');
const text = (t: string | PatternDeclaration) => (typeof t === 'string' ? t : compile(t));

function target(t: LoginRecipeDeclaration['form']['username']): Target {
  if ('label' in t) return { label: text(t.label) };
  if ('role' in t) return { role: t.role, name: text(t.name) };
  return t;
}

function signals(list: LoginRecipeDeclaration['success']): PageSignal[] {
  return list.map((s) => ({
    ...(s.path && { path: compile(s.path) }),
    ...(s.pathNot && { pathNot: compile(s.pathNot) }),
    ...(s.heading && { heading: compile(s.heading) }),
    ...(s.alert && { alert: compile(s.alert) }),
    ...(s.cookie && { cookie: s.cookie }),
    ...(s.visible && { visible: target(s.visible) }),
  }));
}

/** The declared recipe in the login engine's form (patterns compiled). */
export function compileLoginRecipe(r: LoginRecipeDeclaration): LoginRecipe {
  const code = (step: NonNullable<NonNullable<LoginRecipeDeclaration['mfa']>['totp']>) => ({
    when: signals(step.when),
    code: target(step.code),
    submit: target(step.submit),
    rejected: signals(step.rejected),
  });
  return {
    usernameLabel: r.usernameLabel,
    form: {
      username: target(r.form.username),
      ...(r.form.next && { next: target(r.form.next) }),
      password: target(r.form.password),
      submit: target(r.form.submit),
    },
    success: signals(r.success),
    invalidCredentials: signals(r.invalidCredentials),
    locked: signals(r.locked),
    ...(r.mfa && { mfa: { ...(r.mfa.totp && { totp: code(r.mfa.totp) }), ...(r.mfa.sms && { sms: code(r.mfa.sms) }) } }),
    ...(r.mfaFailed && { mfaFailed: signals(r.mfaFailed) }),
    ...(r.humanCheck && {
      humanCheck: { when: signals(r.humanCheck.when), checkbox: target(r.humanCheck.checkbox), submit: target(r.humanCheck.submit) },
    }),
  };
}

/** A validated declaration in its runtime form. The id and environment are settled by whoever declared it. */
export function compileDeclaration(
  d: ProviderDeclaration,
  settled: { providerId: string; environment: Environment; source?: ProviderDefinition['source']; organizationId?: string },
): ProviderDefinition {
  return {
    providerId: settled.providerId,
    name: d.name,
    slug: d.slug,
    category: d.category,
    environment: settled.environment,
    homeUrl: d.homeUrl,
    loginUrl: d.loginUrl,
    allowedOrigins: [...d.allowedOrigins],
    identityProviders: [...(d.identityProviders ?? [])],
    ...(d.logo && { logo: d.logo }),
    ...(d.login && { login: compileLoginRecipe(d.login) }),
    ...(d.passkeySignIn && { passkeySignIn: target(d.passkeySignIn) }),
    ...(d.sessionRefresh && { sessionRefresh: d.sessionRefresh.map((r) => ({ ...r })) }),
    ...(d.signedIn && { signedIn: d.signedIn }),
    ...(d.readyWhen && { readyWhen: { ...d.readyWhen } }),
    ...(d.liveViewport && { liveViewport: { ...d.liveViewport } }),
    ...(d.loginPagePattern && { loginPagePattern: new RegExp(d.loginPagePattern) }),
    // The deployment's key speaks for every organization on it: only the operator's declarations may ask for it.
    ...(d.signedAgent && settled.source !== 'organization' && { signedAgent: true }),
    ...(settled.source && { source: settled.source }),
    ...(settled.organizationId && { organizationId: settled.organizationId }),
  };
}

/**
 * A built-in provider: its declaration checked like any other (a mistake fails at start-up with the path), then
 * compiled. `loginStartUrl` is the one thing that is not data (a sandbox site's signed ticket).
 */
export function defineProvider(
  declaration: ProviderDeclaration & { providerId: string; environment: Environment },
  hooks: Pick<ProviderDefinition, 'loginStartUrl'> = {},
): ProviderDefinition {
  const check = checkProviderDeclaration(declaration, declaration.environment);
  if (!check.ok) {
    const first = check.issues[0];
    throw new Error(`built-in provider ${declaration.slug}: ${first.path}: ${first.message}`);
  }
  return {
    ...compileDeclaration(check.declaration, { providerId: declaration.providerId, environment: declaration.environment }),
    ...hooks,
  };
}
