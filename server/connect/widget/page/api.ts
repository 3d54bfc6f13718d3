import { nav } from './nav';
import { apiBase, state, type WidgetError } from './state';

/**
 * A call to AgentLink (POST /link/api/…): the link token goes in the Authorization header, never in a URL. Resolves to
 * the answer; rejects with the error envelope's `error`, or NETWORK_ERROR when AgentLink could not be reached.
 */
export function api<T>(path: string, body?: object): Promise<T> {
  return fetch(apiBase + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + state.token },
    body: JSON.stringify(body || {}),
    credentials: 'omit',
    cache: 'no-store',
  }).then(
    (res) =>
      res
        .json()
        .catch(() => null)
        .then((json: { error?: WidgetError } | null) => {
          if (res.ok) return json as T;
          throw (json && json.error) || { code: 'INTERNAL_ERROR', message: 'Something went wrong.' };
        }),
    () => {
      throw { code: 'NETWORK_ERROR', message: 'We could not reach AgentLink.' };
    },
  );
}

let inFlight = false;

/** Runs one call at a time (a second press while one is on its way does nothing); a failure goes to the error screen. */
export function run<T>(call: () => Promise<T>, then: (value: T) => void): void {
  if (inFlight) return;
  inFlight = true;
  state.lastAction = () => run(call, then);
  call().then(
    (value) => {
      inFlight = false;
      then(value);
    },
    (err: Partial<WidgetError> | null) => {
      inFlight = false;
      nav.failure(err, state.lastAction);
    },
  );
}
