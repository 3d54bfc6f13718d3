import { builtInErrors } from '../page-code/built-in-errors.page';
import { nativeMasks } from '../page-code/native-masks.page';

/**
 * In every document of every context AgentLink opens (the context's init script, which Chromium runs before any script
 * of the page, a popup's included): a page's first navigator.credentials.create() or get() waits until the page's
 * WebAuthn environment is in place (webauthn-environment.ts) before it goes to the browser.
 *
 * Why: this headless Chromium has no authenticator; a WebAuthn call on a page whose environment is not there yet
 * crashes the whole browser. A popup is released to run by Playwright in the same batch that sets it up, so its own
 * script may call WebAuthn before our environment arrives (measured: 1 crash in 6 runs beside busy CPU loops, every
 * time with the environment delayed 1.5 s). The environment makes a user-verifying platform authenticator available,
 * which is what this waits to see (isUserVerifyingPlatformAuthenticatorAvailable: asking it is safe without one). Never
 * there within the bound: the call ends NotAllowedError, as the environment itself would have ended it, and never
 * reaches the browser. Once seen, calls go straight through.
 *
 * One closure, no globals; the two methods read as the built-ins they stand for (name, length, source text), and fail
 * as they do: no frame of ours in an error's stack (built-in-errors.page.ts).
 */
export default function gateWebAuthn(waitMs: number, realmKey: string): void {
  const top = builtInErrors(globalThis);
  const define = Object.defineProperty;
  const describe = Object.getOwnPropertyDescriptor;
  // Taken before any page script ran: no call of ours goes through a Function.prototype.call or apply a page replaced.
  const apply = Reflect.apply;
  // The toString masks every same-origin realm of the page shares (native-masks.page.ts), the device's too.
  const masks = nativeMasks(globalThis, realmKey, top.rethrow).masks;
  /** Realms gated already (by their CredentialsContainer: a window keeps its WindowProxy when it loads a new document). */
  const gated = new WeakSet<object>();
  const gateRealm = (g: Record<string, unknown>) => {
    const key = g.CredentialsContainer as object | undefined;
    if (!key || gated.has(key)) return;
    gated.add(key);
    nativeMasks(g as unknown as typeof globalThis, realmKey, builtInErrors(g as unknown as typeof globalThis).rethrow);
    gate(g);
  };
  gateRealm(globalThis as unknown as Record<string, unknown>);

  // A new window with no address yet (open(''), document.open(url, name, features)) runs its opener's script before any
  // script of ours could reach it: the gate is put on it here, as it is returned (its empty document has the opener's
  // origin then; another origin's window is not reachable, and its own documents get the init script).
  const g = globalThis as unknown as Record<string, unknown>;
  const wrapOpener = (holder: object | undefined, name: string) => {
    const before = holder ? describe(holder, name) : undefined;
    if (!holder || typeof before?.value !== 'function') return;
    const original = before.value as (...a: unknown[]) => unknown;
    const replaced = {
      [name](this: unknown, ...args: unknown[]) {
        let opened: Record<string, unknown> | null;
        try {
          opened = apply(original, this, args) as Record<string, unknown> | null;
        } catch (error) {
          return top.rethrow(error, replaced);
        }
        try {
          if (opened && opened.window === opened) gateRealm(opened);
        } catch {
          // another origin's window
        }
        return opened;
      },
    }[name]!;
    define(replaced, 'length', { value: original.length });
    masks.set(replaced, `function ${name}() { [native code] }`);
    define(holder, name, { ...before, value: replaced });
  };
  wrapOpener(g, 'open');
  wrapOpener((g.Document as { prototype?: object } | undefined)?.prototype, 'open');

  function gate(g: Record<string, unknown>): void {
    const Credentials = g.CredentialsContainer as { prototype: Record<string, unknown> } | undefined;
    const Pkc = g.PublicKeyCredential as { isUserVerifyingPlatformAuthenticatorAvailable?: () => Promise<boolean> } | undefined;
    const available = Pkc?.isUserVerifyingPlatformAuthenticatorAvailable;
    if (!Credentials || !Pkc || typeof available !== 'function') return;
    const errors = builtInErrors(g as unknown as typeof globalThis);

    const setTimer = g.setTimeout as (fn: () => void, ms: number) => unknown;
    const now = () => (g.performance as Performance).now();
    let ready = false;
    let waiting: Promise<boolean> | null = null;
    const environment = (): Promise<boolean> =>
      (waiting ??= new Promise<boolean>((resolve) => {
        const until = now() + waitMs;
        // The bound holds even when the browser never answers the question (a page mid-setup): then it is refused.
        setTimer(() => resolve(false), waitMs);
        const look = () =>
          (apply(available, Pkc, []) as Promise<boolean>).then(
            (yes) => {
              if (yes) return resolve((ready = true));
              if (now() >= until) return resolve(false);
              setTimer(look, 15);
            },
            () => resolve(false),
          );
        look();
      }));
    const refused = () => {
      const DomError = g.DOMException as typeof DOMException;
      return Promise.reject(new DomError('The operation either timed out or was not allowed.', 'NotAllowedError'));
    };

    for (const name of ['create', 'get']) {
      const before = describe(Credentials.prototype, name);
      if (typeof before?.value !== 'function') continue;
      const original = before.value as (...a: unknown[]) => Promise<unknown>;
      const replaced = {
        [name](this: unknown, ...args: unknown[]): Promise<unknown> {
          const site = errors.callSite(replaced); // a rejection, made here or later, gets the frames of this call
          try {
            if (ready) return errors.restacked(apply(original, this, args) as Promise<unknown>, site);
            return errors.restacked(
              environment().then((ok) => (ok ? (apply(original, this, args) as Promise<unknown>) : refused())),
              site,
            );
          } catch (error) {
            return errors.rethrow(error, replaced);
          }
        },
      }[name]!;
      define(replaced, 'length', { value: original.length });
      masks.set(replaced, `function ${name}() { [native code] }`);
      define(Credentials.prototype, name, { ...before, value: replaced });
    }
  }
}
