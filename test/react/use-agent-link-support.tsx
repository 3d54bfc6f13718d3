import { type AgentLinkMetadata, useAgentLink, type UseAgentLinkOptions } from '@agentlink/react';
import { act, renderHook } from '@testing-library/react';

/**
 * What use-agent-link.test.tsx drives the hook with: the backend, its origin and a link token; the metadata of a
 * success; a fake popup window; a message as the browser delivers it; the hook rendered with options of its own
 * (jest.fn callbacks); and a component that uses it.
 */
export const BACKEND = 'http://agentlink.test:4000';
export const ORIGIN = 'http://agentlink.test:4000';
export const TOKEN = 'link-sandbox-0123456789abcdef';

export const METADATA: AgentLinkMetadata = {
  providerId: '5d1f4c5e-8a59-4c1e-9a57-0d8d3f0b6a11',
  providerName: 'Orbit',
  clientUserId: 'user-42',
  linkSessionId: 'lks_123',
  connectionStatus: 'ACTIVE',
};

export interface FakePopup {
  closed: boolean;
  close: jest.Mock;
  focus: jest.Mock;
  postMessage: jest.Mock;
}

/** A popup window as window.open returns it: close() marks it closed. */
export function fakePopup(): FakePopup {
  const popup: FakePopup = {
    closed: false,
    close: jest.fn(() => {
      popup.closed = true;
    }),
    focus: jest.fn(),
    postMessage: jest.fn(),
  };
  return popup;
}

/** A message as the browser delivers it: jsdom's MessageEvent does not take a plain object as source. */
export function deliver(data: unknown, source: unknown, origin = ORIGIN) {
  const event = new MessageEvent('message', { data, origin });
  Object.defineProperty(event, 'source', { value: source });
  act(() => {
    window.dispatchEvent(event);
  });
}

/** The hook rendered with these options over the defaults (the token, the backend, sandbox, every callback a jest.fn()). */
export function setup(overrides: Partial<UseAgentLinkOptions> = {}) {
  const options: UseAgentLinkOptions = {
    linkToken: TOKEN,
    backendUrl: BACKEND,
    env: 'sandbox',
    onSuccess: jest.fn(),
    onError: jest.fn(),
    onExit: jest.fn(),
    onEvent: jest.fn(),
    ...overrides,
  };
  const hook = renderHook((props: UseAgentLinkOptions) => useAgentLink(props), { initialProps: options });
  return { ...hook, options };
}

/** A button that opens the widget once the hook is ready. */
export function Connect({ linkToken }: { linkToken: string }) {
  const { open, ready } = useAgentLink({
    linkToken,
    backendUrl: BACKEND,
    env: 'sandbox',
    onSuccess: () => undefined,
    onError: () => undefined,
  });
  return (
    <button type="button" disabled={!ready} onClick={() => open()}>
      Connect account
    </button>
  );
}
