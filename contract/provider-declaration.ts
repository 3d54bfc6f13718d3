import { extendApi } from '@anatine/zod-openapi';
import { z } from 'zod';

/**
 * A provider as data: what AgentLink must know to sign a person in to a website and keep its agent on that site.
 * The built-in providers (server/integrations/), the operator's file (AGENTLINK_PROVIDERS_FILE) and an
 * organization's private providers (POST /api/providers) are all declarations of this one schema; the server
 * turns a declaration into its runtime form (regular expressions compiled) in server/providers/.
 *
 * Everything is JSON: no functions, and patterns are regular-expression *sources* (JavaScript syntax, no
 * slashes) with optional flags. Every string, list and pattern is bounded; a pattern whose shape can backtrack
 * without end (a quantified group holding a quantifier, a back-reference) is refused, since the server runs it.
 */
export const PROVIDER_DECLARATION_LIMITS = {
  nameMax: 100,
  urlMax: 2048,
  hostMax: 255,
  allowedOriginsMax: 32,
  identityProvidersMax: 16,
  logoSvgMaxBytes: 16 * 1024,
  textMax: 200,
  patternMax: 500,
  signalsMax: 10,
  cookiesMax: 10,
  cookieNameMax: 128,
  cssMax: 500,
  sessionRefreshMax: 10,
} as const;

const L = PROVIDER_DECLARATION_LIMITS;

/**
 * What people connect: social networks and developer platforms, but also work tools, banks, shops, helpdesks and
 * intranets. `other` for anything else (the widget then names no category).
 */
export const PROVIDER_CATEGORIES = ['social', 'developer', 'productivity', 'finance', 'commerce', 'helpdesk', 'intranet', 'other'] as const;
export type ProviderCategory = (typeof PROVIDER_CATEGORIES)[number];
export const ProviderCategorySchema = extendApi(z.enum(PROVIDER_CATEGORIES), {
  description: 'What kind of site it is: social, developer, productivity, finance, commerce, helpdesk, intranet or other.',
});

/** Why a regular-expression source is refused, or null: it must compile and must not backtrack without end. */
export function regexProblem(source: string, flags = ''): string | null {
  try {
    new RegExp(source, flags);
  } catch (err) {
    return `not a valid regular expression (${(err as Error).message})`;
  }
  if (/\\[1-9]|\\k</.test(source)) return 'back-references are not allowed';
  // A quantified group that itself holds a quantifier ((a+)+, (\w*x)*, (a|a?){2,}) can take exponential time.
  const stripped = source.replace(/\\./g, 'x').replace(/\[(?:[^\]\\]|\\.)*\]/g, 'x');
  const stack: boolean[] = [];
  for (let i = 0; i < stripped.length; i++) {
    const ch = stripped[i];
    if (ch === '(') stack.push(false);
    else if (ch === ')') {
      const inner = stack.pop() ?? false;
      // `?` after a group only makes it optional (bounded); a repeat (*, +, {n,}) of a group that repeats is what explodes.
      const quantified = /^[*+{]/.test(stripped.slice(i + 1));
      if (inner && quantified) return 'a quantified group holds a quantifier (it can backtrack without end)';
      if (stack.length && (inner || quantified)) stack[stack.length - 1] = true;
    } else if ((ch === '*' || ch === '+' || ch === '{' || (ch === '?' && stripped[i - 1] !== '(')) && stack.length) {
      stack[stack.length - 1] = true;
    }
  }
  return null;
}

const patternSource = z
  .string()
  .min(1)
  .max(L.patternMax)
  .superRefine((s, ctx) => {
    const problem = regexProblem(s);
    if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem });
  });

/** A regular expression as data: `source` in JavaScript syntax without slashes, `flags` from i, m, s, u. */
export const PatternSchema = z
  .object({
    pattern: z.string().min(1).max(L.patternMax),
    flags: z
      .string()
      .regex(/^[imsu]{0,4}$/)
      .optional(),
  })
  .strict()
  .superRefine((p, ctx) => {
    const problem = regexProblem(p.pattern, p.flags);
    if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['pattern'], message: problem });
  });
export type PatternDeclaration = z.infer<typeof PatternSchema>;

/** Text on the page: an exact string, or a pattern. */
const TextSchema = z.union([z.string().min(1).max(L.textMax), PatternSchema]);

/** An element of the provider's page, found the way assistive technology finds it (CSS only as a last resort). */
export const TargetSchema = z.union([
  z.object({ label: TextSchema }).strict(),
  z.object({ role: z.enum(['button', 'checkbox', 'textbox', 'link']), name: TextSchema }).strict(),
  z.object({ placeholder: z.string().min(1).max(L.textMax) }).strict(),
  z.object({ css: z.string().min(1).max(L.cssMax) }).strict(),
]);

/** One observable fact about the page; every condition given must hold. */
export const PageSignalSchema = z
  .object({
    path: PatternSchema.optional(),
    pathNot: PatternSchema.optional(),
    heading: PatternSchema.optional(),
    alert: PatternSchema.optional(),
    cookie: z.string().min(1).max(L.cookieNameMax).optional(),
    visible: TargetSchema.optional(),
  })
  .strict()
  .refine((s) => Object.keys(s).length > 0, { message: 'a signal needs at least one condition' });

/** A list of signals matches when any one of them does. */
const Signals = z.array(PageSignalSchema).max(L.signalsMax);

const CodeStepSchema = z.object({ when: Signals.min(1), code: TargetSchema, submit: TargetSchema, rejected: Signals }).strict();

/** How the login engine signs in by replaying the person's username, password and codes into the form. */
export const LoginRecipeDeclarationSchema = z
  .object({
    usernameLabel: z.string().min(1).max(L.textMax),
    form: z.object({ username: TargetSchema, next: TargetSchema.optional(), password: TargetSchema, submit: TargetSchema }).strict(),
    success: Signals.min(1),
    invalidCredentials: Signals,
    locked: Signals,
    mfa: z.object({ totp: CodeStepSchema.optional(), sms: CodeStepSchema.optional() }).strict().optional(),
    mfaFailed: Signals.optional(),
    humanCheck: z
      .object({ when: Signals.min(1), checkbox: TargetSchema, submit: TargetSchema })
      .strict()
      .optional(),
  })
  .strict();
export type LoginRecipeDeclaration = z.infer<typeof LoginRecipeDeclarationSchema>;

const webUrl = z
  .string()
  .max(L.urlMax)
  .url()
  .refine((u) => /^https?:$/.test(new URL(u).protocol), { message: 'must be an http or https URL' })
  .refine((u) => !new URL(u).username && !new URL(u).password, { message: 'must not carry credentials' });

const HOST_NAME = /^(\*\.)?[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?)*$/i;
const IPV6_LITERAL = /^\[[0-9a-f:.]+\]$/i;
const ORIGIN = /^https?:\/\/[^/?#@\s]+$/i;

/**
 * An allowed origin as the egress policy reads it: a host name (`github.com`, `*.example.com` for any subdomain,
 * an IP literal) reached on the home URL's scheme and port, or a full origin with its own scheme and port
 * (`https://accounts.example.com`, `http://127.0.0.1:4100`).
 */
export const OriginEntrySchema = z
  .string()
  .min(1)
  .max(L.hostMax)
  .refine(
    (s) => {
      if (!ORIGIN.test(s)) return HOST_NAME.test(s) || IPV6_LITERAL.test(s);
      try {
        return new URL(s).origin !== 'null';
      } catch {
        return false;
      }
    },
    { message: 'must be a host name (*.example.com for subdomains) or an origin (https://host[:port]) with nothing after it' },
  );

const LogoSchema = extendApi(
  z
    .string()
    .min(1)
    .refine((s) => (s.trimStart().startsWith('<svg') ? new TextEncoder().encode(s).length <= L.logoSvgMaxBytes : s.length <= L.urlMax), {
      message: `an SVG document is at most ${L.logoSvgMaxBytes} bytes, a URL at most ${L.urlMax} characters`,
    })
    .refine((s) => s.trimStart().startsWith('<svg') || /^https:\/\/[^\s]+$/.test(s), {
      message: 'must be an SVG document (<svg …>) or an https URL',
    }),
  { description: 'An SVG document (shown as an image, never inlined into a page) or an https URL of an image.' },
);

/** How a signed-in session is recognised (the live sign-in view closes when it appears). Every part given must hold. */
export const SignedInSchema = extendApi(
  z
    .object({
      cookies: z.array(z.string().min(1).max(L.cookieNameMax)).max(L.cookiesMax).optional(),
      /** A regular-expression source tested against the page's full URL (href), e.g. `^https://example\\.com/home`. */
      urlPattern: patternSource.optional(),
      /** A CSS selector that must be present on the page. */
      element: z.string().min(1).max(L.cssMax).optional(),
    })
    .strict(),
  {
    description:
      'cookies: names that must be set; urlPattern: a regular-expression source tested against the full URL (href); ' +
      'element: a CSS selector that must be present.',
  },
);
export type SignedIn = z.infer<typeof SignedInSchema>;

/** The live view's page size: a desktop app is drawn at its own width and scaled to the widget (never cut off). */
export const LIVE_VIEWPORT_BOUNDS = { minWidth: 320, maxWidth: 2560, minHeight: 320, maxHeight: 1600 } as const;

/** When a page of the provider has drawn its content (the agent looks at it only then). Every part given must hold. */
export const ReadyWhenSchema = extendApi(
  z
    .object({
      /** A CSS selector that is present once the content is drawn (`#package-list`, `.red-ui-workspace`). */
      selector: z.string().min(1).max(L.cssMax).optional(),
      /** A text the page shows once the content is drawn. */
      text: z.string().min(1).max(L.textMax).optional(),
    })
    .strict()
    .refine((w) => !!(w.selector || w.text), { message: 'readyWhen needs a selector or a text' }),
  {
    description:
      'When a page has drawn its content: selector, a CSS selector present; text, a text shown. Default: a main landmark holding ' +
      'something. The agent also waits for a quiet network and DOM, within a budget.',
  },
);
export type ReadyWhen = z.infer<typeof ReadyWhenSchema>;

export const LiveViewportSchema = extendApi(
  z
    .object({
      width: z.number().int().min(LIVE_VIEWPORT_BOUNDS.minWidth).max(LIVE_VIEWPORT_BOUNDS.maxWidth),
      height: z.number().int().min(LIVE_VIEWPORT_BOUNDS.minHeight).max(LIVE_VIEWPORT_BOUNDS.maxHeight),
    })
    .strict(),
  { description: "The live sign-in page's viewport in CSS pixels (default 1280×800), scaled to fit the widget." },
);
export type LiveViewport = z.infer<typeof LiveViewportSchema>;

export const PROVIDER_SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,39}$/;

/** The declaration's fields, without the cross-field rules (PATCH takes any of them). */
export const ProviderDeclarationFields = z
  .object({
    providerId: extendApi(z.string().uuid().optional(), {
      description: 'Stable UUID. Required in the operator file and for built-ins; assigned by the server for an organization.',
    }),
    name: z.string().min(1).max(L.nameMax),
    slug: z.string().regex(PROVIDER_SLUG_PATTERN, 'lower-case letters, digits and dashes, 1-40 characters'),
    category: ProviderCategorySchema,
    environment: extendApi(z.enum(['sandbox', 'production']).optional(), {
      description: "Defaults to the credentials' environment (an organization cannot declare for the other one).",
    }),
    homeUrl: webUrl,
    loginUrl: webUrl,
    allowedOrigins: extendApi(z.array(OriginEntrySchema).min(1).max(L.allowedOriginsMax), {
      description: "Where the browser may go for this provider (home URL's host must be one of them). Enforced by the egress policy.",
    }),
    identityProviders: extendApi(z.array(OriginEntrySchema).max(L.identityProvidersMax).optional(), {
      description: 'Origins its single sign-on may pass through (https://accounts.example.com); reachable during sign-in only.',
    }),
    logo: extendApi(LogoSchema.optional(), {
      description: 'An SVG document or an https URL of an image. Optional: without one, a letter mark of the name is shown.',
    }),
    login: LoginRecipeDeclarationSchema.optional(),
    passkeySignIn: extendApi(TargetSchema.optional(), {
      description:
        "The sign-in page's passkey control ({ role: 'button', name: 'Sign in with a passkey' }), pressed when a connection " +
        'that holds a passkey of its own (link token enrollPasskey) renews its session unattended. Default: a button or link ' +
        'whose accessible name is like "Sign in with a passkey", "Use a passkey" or "Passkey".',
    }),
    sessionRefresh: extendApi(
      z
        .array(
          z
            .object({
              method: z.enum(['POST', 'PUT', 'PATCH', 'DELETE']),
              path: z.string().min(1).max(L.urlMax).startsWith('/'),
            })
            .strict(),
        )
        .max(L.sessionRefreshMax)
        .optional(),
      { description: 'Writes a read-mode run may still send because the session refresh needs them (exact method and path).' },
    ),
    signedIn: SignedInSchema.optional(),
    readyWhen: ReadyWhenSchema.optional(),
    liveViewport: LiveViewportSchema.optional(),
    loginPagePattern: extendApi(patternSource.optional(), {
      description:
        "A regular-expression source tested against the full URL (href): the page is the provider's sign-in page (the session died). " +
        "Default: the login URL's host and a path under the login URL's path.",
    }),
    signedAgent: extendApi(z.boolean().optional(), {
      description:
        'Web Bot Auth: sign every request of the agent to this provider (HTTP Message Signatures, Signature-Agent naming this ' +
        "AgentLink, keys at /.well-known/http-message-signatures-directory). Only where the organization's connection settings " +
        "turn signedAgent on as well. Default false. Set by the operator (AGENTLINK_PROVIDERS_FILE) only: the deployment's one key " +
        "speaks for every organization on it, so an organization's own provider with signedAgent is refused.",
    }),
  })
  .strict();

/** A provider declaration: the fields, and the rules between them. */
export const ProviderDeclarationSchema = extendApi(ProviderDeclarationFields.superRefine(checkDeclaration), {
  title: 'ProviderDeclaration',
});
export type ProviderDeclaration = z.infer<typeof ProviderDeclarationFields>;

/** The home and login URLs must be reachable under the declaration's own allowed origins. */
export function checkDeclaration(d: Partial<ProviderDeclaration>, ctx: z.RefinementCtx): void {
  if (!d.homeUrl || !d.allowedOrigins) return;
  const home = new URL(d.homeUrl);
  for (const field of ['homeUrl', 'loginUrl'] as const) {
    const url = d[field];
    if (!url) continue;
    if (
      !originCovers(d.allowedOrigins, home, new URL(url)) &&
      !(field === 'loginUrl' && originCovers(d.identityProviders ?? [], home, new URL(url)))
    ) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: [field], message: `${new URL(url).host} is not one of allowedOrigins` });
    }
  }
}

/** Whether a URL is covered by a list of origin entries (host names on the home URL's scheme and port, or origins). */
export function originCovers(entries: readonly string[], home: URL, url: URL): boolean {
  const port = (u: URL) => u.port || (u.protocol === 'https:' ? '443' : '80');
  return entries.some((e) => {
    if (ORIGIN.test(e)) {
      const o = new URL(e);
      return o.protocol === url.protocol && o.hostname === url.hostname && port(o) === port(url);
    }
    if (url.protocol !== home.protocol || port(url) !== port(home)) return false;
    const host = e.toLowerCase();
    return host.startsWith('*.') ? url.hostname.endsWith(host.slice(1)) : url.hostname === host;
  });
}

/** PATCH: any declaration field but the id and environment; the merged declaration is checked whole. */
export const UpdateProviderBodySchema = extendApi(ProviderDeclarationFields.omit({ providerId: true, environment: true }).partial(), {
  title: 'UpdateProviderBody',
  description: 'Top-level fields replace the stored ones (login, signedIn … are replaced whole); the result is validated as a whole.',
});
