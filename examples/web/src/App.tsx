import { type AgentLinkEnv, type AgentLinkError, type AgentLinkMetadata, useAgentLink } from '@agentlink/react';
import { type FormEvent, useCallback, useEffect, useRef, useState } from 'react';

import {
  type AgentRequestRecord,
  type ExchangeResult,
  type Provider,
  relay,
  RelayCallError,
  TERMINAL_STATUSES,
  type UserAction,
} from './api';

export interface AppProps {
  /** AgentLink's address, for the widget ({backendUrl}/link). */
  backendUrl: string;
  env: AgentLinkEnv;
  clientUserId: string;
  /** Optional: restrict the widget to one provider. */
  providerId?: string;
}

interface Connected {
  exchange: ExchangeResult;
  metadata: AgentLinkMetadata;
}

const explain = (err: unknown) => (err instanceof RelayCallError ? err.message : `NETWORK_ERROR: ${(err as Error).message}`);

export function App({ backendUrl, env, clientUserId, providerId }: AppProps) {
  const [linkToken, setLinkToken] = useState('');
  const [relayError, setRelayError] = useState<string | null>(null);
  const [connected, setConnected] = useState<Connected | null>(null);
  const [lastLinkError, setLastLinkError] = useState<AgentLinkError | null>(null);
  const [events, setEvents] = useState<string[]>([]);

  // A link token is single use: fetch one now and a fresh one after each connection.
  const fetchLinkToken = useCallback(() => {
    setLinkToken('');
    relay
      .createLinkToken(clientUserId, providerId)
      .then((r) => setLinkToken(r.linkToken))
      .catch((err) => setRelayError(`Could not create a link token: ${explain(err)}`));
  }, [clientUserId, providerId]);
  useEffect(fetchLinkToken, [fetchLinkToken]);

  const { open, ready, error } = useAgentLink({
    linkToken,
    backendUrl,
    env,
    onSuccess: (publicToken, metadata) => {
      setLastLinkError(null);
      relay
        .exchange(publicToken)
        .then((exchange) => setConnected({ exchange, metadata }))
        .catch((err) => setRelayError(`Exchange failed: ${explain(err)}`))
        .finally(fetchLinkToken);
    },
    onError: (err) => setLastLinkError(err),
    onEvent: (eventName) => setEvents((list) => [...list, eventName]),
  });

  const shownError = error ?? lastLinkError;
  return (
    <main>
      <h1>AgentLink example</h1>
      <p className="muted">
        A caller app: its backend relay holds the client credentials; this page uses <code>useAgentLink</code> ({env}, user{' '}
        <code>{clientUserId}</code>).
      </p>

      <section aria-labelledby="connect-heading">
        <h2 id="connect-heading">1. Connect an account</h2>
        <button type="button" onClick={() => open()} disabled={!ready}>
          {connected ? 'Connect another account' : 'Connect account'}
        </button>{' '}
        {!linkToken && !relayError && <span className="muted">Getting a link token…</span>}
        {shownError && (
          <p role="alert" className="error" data-testid="link-error">
            <strong>{shownError.code}</strong>: {shownError.message}
          </p>
        )}
        {relayError && (
          <p role="alert" className="error" data-testid="relay-error">
            {relayError}
          </p>
        )}
        {events.length > 0 && <p className="muted">Widget events: {events.join(' → ')}</p>}
      </section>

      {connected && (
        <section aria-labelledby="connection-heading" data-testid="connection">
          <h2 id="connection-heading">Connected: {connected.metadata.providerName ?? connected.exchange.providerId}</h2>
          <dl>
            <dt>connectionId</dt>
            <dd data-testid="connection-id">{connected.exchange.connectionId}</dd>
            <dt>status</dt>
            <dd data-testid="connection-status">{connected.exchange.status}</dd>
            <dt>clientUserId</dt>
            <dd>{connected.exchange.clientUserId}</dd>
            <dt>environment</dt>
            <dd>{connected.exchange.environment}</dd>
            <dt>link session</dt>
            <dd>{connected.metadata.linkSessionId}</dd>
          </dl>
        </section>
      )}

      {connected && (
        <AgentRequestForm key={connected.exchange.connectionId} connection={connected.exchange} backendUrl={backendUrl} env={env} />
      )}
    </main>
  );
}

const DEFAULT_RESPONSE_FORMAT = {
  name: 'string - Full name',
  headline: 'string? - Headline under the name',
  followers: 'number - Follower count',
};

/**
 * A run paused NEEDS_USER: what it waits for, and a button that opens the widget on the run's own page with the
 * request's userAction.linkToken (the same hook as for connecting). The run goes on by itself once the person did
 * their part (onExit(null, metadata) with metadata.userActionOutcome); the form's polling shows what follows.
 */
function UserActionPrompt({ userAction, backendUrl, env }: { userAction: UserAction; backendUrl: string; env: AgentLinkEnv }) {
  const [outcome, setOutcome] = useState<string | null>(null);
  const [failure, setFailure] = useState<AgentLinkError | null>(null);
  const { open, ready } = useAgentLink({
    linkToken: userAction.linkToken,
    backendUrl,
    env,
    onSuccess: () => undefined, // a paused run's widget has nothing to exchange
    onExit: (err, metadata) => {
      if (!err && metadata.userActionOutcome) setOutcome(metadata.userActionOutcome);
    },
    onError: (err) => setFailure(err),
  });
  return (
    <div data-testid="user-action">
      <p>
        <strong>The task needs you</strong> ({userAction.reason}): {userAction.message}
      </p>
      {userAction.write && (
        <p className="muted" data-testid="held-write">
          It would send {userAction.write.method} {userAction.write.url} (
          {userAction.write.fields.map((f) => `${f.name}: ${f.value}`).join(', ') || `${userAction.write.bodyBytes} bytes`})
        </p>
      )}
      <button type="button" onClick={() => open()} disabled={!ready || outcome !== null}>
        Continue the task
      </button>{' '}
      <span className="muted">until {new Date(userAction.expiresAt).toLocaleTimeString()}</span>
      {outcome && <p data-testid="user-action-outcome">Thanks: {outcome}. The task goes on.</p>}
      {failure && (
        <p role="alert" className="error" data-testid="user-action-error">
          <strong>{failure.code}</strong>: {failure.message}
        </p>
      )}
    </div>
  );
}

function AgentRequestForm({ connection, backendUrl, env }: { connection: ExchangeResult; backendUrl: string; env: AgentLinkEnv }) {
  const [provider, setProvider] = useState<Provider | null>(null);
  const [action, setAction] = useState('Read my profile');
  const [startingUrl, setStartingUrl] = useState('');
  const [parameters, setParameters] = useState('{}');
  const [responseFormat, setResponseFormat] = useState(JSON.stringify(DEFAULT_RESPONSE_FORMAT, null, 2));
  const [askBeforeWrites, setAskBeforeWrites] = useState(false);
  const [record, setRecord] = useState<AgentRequestRecord | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const pollTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  // Prefill the starting URL from the provider catalogue (the sandbox Orbit profile page: {homeUrl}/me).
  useEffect(() => {
    relay
      .providers()
      .then(({ providers }) => {
        const p = providers.find((x) => x.providerId === connection.providerId) ?? null;
        setProvider(p);
        if (p) setStartingUrl((current) => current || (p.slug === 'orbit' ? new URL('/me', p.homeUrl).toString() : p.homeUrl));
      })
      .catch(() => undefined);
  }, [connection.providerId]);

  useEffect(() => () => clearTimeout(pollTimer.current), []);

  const poll = (requestId: string) => {
    pollTimer.current = setTimeout(() => {
      relay
        .getAgentRequest(requestId)
        .then((r) => {
          setRecord(r);
          if (TERMINAL_STATUSES.includes(r.status)) setBusy(false);
          else poll(requestId);
        })
        .catch((err) => {
          setFormError(explain(err));
          setBusy(false);
        });
    }, 1000);
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setFormError(null);
    let params: Record<string, unknown>;
    let format: Record<string, unknown>;
    try {
      params = JSON.parse(parameters) as Record<string, unknown>;
      format = JSON.parse(responseFormat) as Record<string, unknown>;
    } catch (err) {
      setFormError(`Parameters and responseFormat must be JSON: ${(err as Error).message}`);
      return;
    }
    clearTimeout(pollTimer.current);
    setBusy(true);
    setRecord(null);
    relay
      .createAgentRequest({
        accessToken: connection.access_token,
        action,
        startingUrl,
        parameters: params,
        responseFormat: format,
        ...(askBeforeWrites ? { approval: 'writes' as const } : {}),
      })
      .then((accepted) => {
        setRecord(accepted);
        poll(accepted.requestId);
      })
      .catch((err) => {
        setFormError(explain(err));
        setBusy(false);
      });
  };

  return (
    <section aria-labelledby="agent-heading">
      <h2 id="agent-heading">2. Run an agent request{provider ? ` on ${provider.name}` : ''}</h2>
      <form onSubmit={submit}>
        <label htmlFor="action">action</label>
        <input id="action" value={action} onChange={(e) => setAction(e.target.value)} required />
        <label htmlFor="startingUrl">startingUrl</label>
        <input id="startingUrl" value={startingUrl} onChange={(e) => setStartingUrl(e.target.value)} required />
        <label htmlFor="parameters">parameters (JSON)</label>
        <textarea id="parameters" rows={2} value={parameters} onChange={(e) => setParameters(e.target.value)} />
        <label htmlFor="responseFormat">responseFormat (JSON)</label>
        <textarea id="responseFormat" rows={6} value={responseFormat} onChange={(e) => setResponseFormat(e.target.value)} />
        <label>
          <input
            type="checkbox"
            checked={askBeforeWrites}
            onChange={(e) => setAskBeforeWrites(e.target.checked)}
            style={{ width: 'auto' }}
          />{' '}
          Ask me before it changes anything (approval: writes)
        </label>
        <p>
          <button type="submit" disabled={busy}>
            {busy ? 'Running…' : 'Run agent request'}
          </button>
        </p>
      </form>
      {formError && (
        <p role="alert" className="error" data-testid="agent-error">
          {formError}
        </p>
      )}
      {record && (
        <div data-testid="agent-request">
          <p>
            Request <code>{record.requestId}</code>: <strong data-testid="agent-status">{record.status}</strong>
            {record.executionTimeMs != null && <span className="muted"> in {record.executionTimeMs} ms</span>}
          </p>
          {record.status === 'NEEDS_USER' && record.userAction && (
            <UserActionPrompt key={record.userAction.linkToken} userAction={record.userAction} backendUrl={backendUrl} env={env} />
          )}
          {record.error && (
            <p className="error">
              <strong>{record.error.code}</strong>: {record.error.message}
            </p>
          )}
          {record.result !== undefined && record.result !== null && (
            <pre data-testid="agent-result">{JSON.stringify(record.result, null, 2)}</pre>
          )}
        </div>
      )}
    </section>
  );
}
