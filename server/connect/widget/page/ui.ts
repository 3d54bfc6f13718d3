import type { LinkSessionView, WidgetProvider } from '../../link-session.service';
import { type Attrs, type Child, h, icon } from './dom';
import { el, state } from './state';

/** The screens' place in the progress bar, and its words for screen readers. */
const PROGRESS = {
  loading: [5, 'Loading'],
  consent: [20, 'Review access'],
  picker: [40, 'Choose a provider'],
  credentials: [60, 'Sign in'],
  working: [70, 'Signing in'],
  task: [50, 'Your help is needed'],
  verify: [80, 'Verify it is you'],
  done: [100, 'Connected'],
  error: [null, 'Problem'],
} as const satisfies Record<string, readonly [number | null, string]>;
export type Step = keyof typeof PROGRESS;

export interface ShowOptions {
  /** The header's Back button does this (hidden when absent). */
  back?: (() => void) | null;
  /** A selector of what gets the focus (the heading otherwise). */
  focus?: string | null;
}

/** Shows a screen: its content, the progress, the Back button, and the focus on its heading. */
export function show(step: Step, content: Node, opts: ShowOptions = {}): void {
  const [percent, words] = PROGRESS[step];
  if (percent !== null) {
    el.fill.style.width = percent + '%';
    el.progress.setAttribute('aria-valuenow', String(percent));
  }
  el.progress.setAttribute('aria-valuetext', words);
  el.back.hidden = !opts.back;
  el.back.onclick = opts.back || null;
  el.card.setAttribute('aria-busy', step === 'working' || step === 'loading' ? 'true' : 'false');
  el.screen.replaceChildren(content);
  el.screen.setAttribute('data-step', step);
  const heading = el.screen.querySelector('h1');
  const focus = opts.focus ? el.screen.querySelector<HTMLElement>(opts.focus) : heading;
  if (focus) focus.focus();
}

export function title(text: string): HTMLHeadingElement {
  return h('h1', { id: 'al-title', class: 'al-title', tabindex: '-1' }, text);
}

export function actions(...children: Child[]): HTMLDivElement {
  return h('div', { class: 'al-actions' }, ...children);
}

export function button(label: string, onclick: () => void, secondary?: boolean, attrs?: Attrs): HTMLButtonElement {
  return h('button', { type: 'button', class: 'al-button' + (secondary ? ' al-button-secondary' : ''), onclick, ...attrs }, label);
}

export function renderLoading(text?: string): void {
  show('loading', h('div', { class: 'al-center' }, h('span', { class: 'al-spinner', 'aria-hidden': 'true' }), title(text || 'Loading…')));
}

/**
 * The sandbox's hint under a step (test users, codes): only on a built-in simulated site, where those users exist;
 * nothing in production, nothing under an organization's or the operator's own provider.
 */
export function sandboxHint(v: LinkSessionView, ...parts: Child[]): HTMLParagraphElement | null {
  if (v.environment !== 'sandbox' || (v.provider && !v.provider.builtInSandbox)) return null;
  return h('p', { class: 'al-sandbox' }, icon('bolt'), h('span', null, ...parts));
}

/** "Sandbox: sign in as user_good / pass_good" and what follows it. */
export function signInAsHint(v: LinkSessionView, tail: string): HTMLParagraphElement | null {
  return sandboxHint(v, 'Sandbox: sign in as ', h('code', null, 'user_good'), ' / ', h('code', null, 'pass_good'), tail);
}

/** Says it to screen readers (the polite live region). */
export function say(text: string): void {
  el.live.textContent = '';
  window.setTimeout(() => {
    el.live.textContent = text;
  }, 30);
}

export function shortName(provider: WidgetProvider | null | undefined): string {
  return provider ? provider.name.replace(/\s*\(.*\)$/, '') : 'your provider';
}

export function orgName(): string | null {
  return state.view && state.view.organization ? state.view.organization.name : null;
}

export function logo(provider: WidgetProvider, large?: boolean): HTMLImageElement {
  return h('img', {
    class: 'al-logo' + (large ? ' al-logo-lg' : ''),
    src: provider.logo,
    alt: '',
    width: large ? 72 : 56,
    height: large ? 72 : 56,
  });
}

export function avatar(name: string): HTMLSpanElement {
  return h('span', { class: 'al-avatar', 'aria-hidden': 'true' }, (name || '?').trim().charAt(0).toUpperCase());
}

export function brandMark(): HTMLSpanElement {
  return h('span', { class: 'al-brand-mark', 'aria-hidden': 'true' }, icon('link'));
}

export function dots(): HTMLSpanElement {
  return h('span', { class: 'al-link-dots', 'aria-hidden': 'true' }, h('span'), h('span'), h('span'));
}

/** A round badge with an icon (success, warning, error). */
export function badge(kind: 'ok' | 'warn' | 'error', name: Parameters<typeof icon>[0]): HTMLSpanElement {
  return h('span', { class: 'al-badge-icon al-badge-' + kind, 'aria-hidden': 'true' }, icon(name));
}
