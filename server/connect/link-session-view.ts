import type { AgentLinkMetadata } from '../../contract/link-messages';
import type { ProviderCategory } from '../../contract/provider-declaration';
import type { Environment } from '../config';
import type { ProviderDefinition } from '../providers/catalogue';
import { isBuiltInSandbox, providerLogoDataUrl } from '../providers/provider';
import type { LinkSessionStatus, LinkTokenRecord } from '../store';
import type { UserActionView } from './user-action-link';

/**
 * What the widget sees of a link session (link-session.service.ts): where the flow stands, the providers to pick from,
 * the consent screen's capabilities, how the person signs in; and what a step, an exit or an error answers.
 */
export interface WidgetProvider {
  providerId: string;
  name: string;
  slug: string;
  category: ProviderCategory;
  /** The category as the picker names it ("Social network"); empty for `other`. */
  categoryLabel: string;
  /** A simulated site shipped with AgentLink: only there do the sandbox's test users (user_good / pass_good) sign in. */
  builtInSandbox: boolean;
  logo: string;
  /** What the provider calls its username field. */
  usernameLabel: string;
}

export interface LinkSessionView {
  linkSessionId: string;
  status: LinkSessionStatus;
  environment: Environment;
  mode: 'create' | 'update' | 'user_action';
  organization: { name: string };
  /** The provider chosen (or fixed by the link token); null until then. */
  provider: WidgetProvider | null;
  /** The link token fixes the provider: the picker is skipped. */
  providerFixed: boolean;
  /** The picker's choices (empty when the provider is fixed). */
  providers: WidgetProvider[];
  /** What the organization will be able to do with the connection (consent screen). */
  capabilities: string[];
  rememberCredentials: boolean;
  mfa: { method: 'totp' | 'sms' } | null;
  /**
   * How the person signs in at the CREDENTIALS step: 'form' (username and password, the recipe fills the provider's
   * form) or 'live' (the provider's real page streamed into the widget); `liveReason` says why it is live.
   */
  signIn: 'form' | 'live';
  liveReason: 'requested' | 'no_recipe' | 'unknown_step' | null;
  /**
   * The link token names a completionRedirectUri: opened as a plain page (not by the SDK), the widget sends the
   * browser there when the flow ends (the URL comes with the final step's answer).
   */
  completionRedirect: boolean;
  /** Mode user_action: the paused run the person is brought into (user-action-link.ts). */
  userAction: UserActionView | null;
}

export interface LinkStepResult {
  view: LinkSessionView;
  /**
   * Present once the connection is made: what the widget hands to the SDK, and, for a hosted link, the completion
   * redirect (completionRedirectUri with public_token, link_session_id and status in its query).
   */
  success?: { publicToken: string; metadata: AgentLinkMetadata; redirectUrl?: string };
}

/** The answer to the widget's exit: how the session ended and, for a hosted link, where the browser goes now. */
export interface LinkExitResult {
  linkSessionId: string;
  status: LinkSessionStatus;
  redirectUrl?: string;
}

/** What the widget learns with an error: where the flow stands, and whether the same step can be tried again. */
export interface LinkErrorDetails {
  linkSessionId: string | null;
  status: LinkSessionStatus | null;
  retryable: boolean;
}

export const CATEGORY_LABELS: Record<ProviderCategory, string> = {
  social: 'Social network',
  developer: 'Developer platform',
  productivity: 'Work and productivity',
  finance: 'Finance',
  commerce: 'Shop',
  helpdesk: 'Helpdesk',
  intranet: 'Intranet',
  other: '',
};

export const CAPABILITIES: Partial<Record<WidgetProvider['category'], string[]>> & { any: string[] } = {
  social: ['See your profile, feed, connections and messages', 'Post, comment, react and send messages as you, when you ask it to'],
  developer: [
    'See your repositories, issues, pull requests and notifications',
    'Open and comment on issues and star repositories as you, when you ask it to',
  ],
  any: ['See what your account can see on the site you choose', 'Take actions as you on that site, when you ask it to'],
};

export function widgetProvider(p: ProviderDefinition): WidgetProvider {
  return {
    providerId: p.providerId,
    name: p.name,
    slug: p.slug,
    category: p.category,
    categoryLabel: CATEGORY_LABELS[p.category],
    builtInSandbox: isBuiltInSandbox(p),
    logo: providerLogoDataUrl(p),
    usernameLabel: p.login?.usernameLabel ?? 'Username',
  };
}

/** The catalogue an organization sees in an environment (its own providers included). */
export function scopeOf(owner: { organizationId: string; environment: LinkTokenRecord['environment'] }) {
  return { organizationId: owner.organizationId, environment: owner.environment };
}
