/**
 * How to sign in to one provider, as data: where the fields are (by role and label, the way a person
 * finds them), and how to tell from the page what happened. The login engine (server/connect/login-engine.ts)
 * is generic and reads only this. Declared as JSON (contract/provider-declaration.ts) and compiled to this form
 * (patterns as RegExp) by server/providers/declaration.ts.
 */

/** An element of the provider's page, found the way assistive technology finds it. */
export type Target =
  | { label: string | RegExp }
  | { role: 'button' | 'checkbox' | 'textbox' | 'link'; name: string | RegExp }
  | { placeholder: string }
  /** Last resort, for pages without usable labels. */
  | { css: string };

/**
 * One observable fact about the current page. Every condition given must hold (AND); a list of
 * signals matches when any one of them does (OR).
 */
export interface PageSignal {
  /** The path of the current URL matches. */
  path?: RegExp;
  /** The path of the current URL does not match. */
  pathNot?: RegExp;
  /** A visible heading whose accessible name matches. */
  heading?: RegExp;
  /** A visible role=alert element whose text matches. */
  alert?: RegExp;
  /** A cookie of this name is set for the current site. */
  cookie?: string;
  /** The element is visible. */
  visible?: Target;
}

export interface CodeStep {
  /** The page asks for this code. */
  when: PageSignal[];
  code: Target;
  submit: Target;
  /** The provider rejected the code but lets the person try again on the same page. */
  rejected: PageSignal[];
}

export interface LoginRecipe {
  /** What the widget calls the username field, in the provider's own words. */
  usernameLabel: string;
  form: {
    username: Target;
    /** Two-page logins (username first): clicked after the username, before the password field shows. */
    next?: Target;
    password: Target;
    submit: Target;
  };
  /** Signed in: the session exists. */
  success: PageSignal[];
  invalidCredentials: PageSignal[];
  locked: PageSignal[];
  mfa?: { totp?: CodeStep; sms?: CodeStep };
  /** The provider gave up on the code step (too many wrong codes) and sent the person back to the start. */
  mfaFailed?: PageSignal[];
  humanCheck?: {
    when: PageSignal[];
    checkbox: Target;
    submit: Target;
  };
}
