/** @jest-environment jsdom */
import { POPUP_CLOSE_GRACE_MS, POPUP_POLL_MS } from '@agentlink/react';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { version as reactVersion } from 'react';

import { BACKEND, Connect, deliver, type FakePopup, fakePopup, METADATA, ORIGIN, setup, TOKEN } from './use-agent-link-support';

// The same file runs against React 19 (project "agentlink") and React 18 (project "react18", see jest.config.js).
// The options, the fake popup, messages as the browser delivers them and a component using the hook:
// use-agent-link-support.tsx.

let openSpy: jest.SpyInstance;
let popup: FakePopup;

beforeEach(() => {
  popup = fakePopup();
  openSpy = jest.spyOn(window, 'open').mockImplementation(() => popup as unknown as Window);
});

afterEach(() => {
  jest.useRealTimers();
  jest.restoreAllMocks();
  document.body.innerHTML = '';
});

describe(`useAgentLink (React ${reactVersion})`, () => {
  describe('ready and error', () => {
    it('is not ready, without error, while the link token is ""', () => {
      const { result } = setup({ linkToken: '' });
      expect(result.current.ready).toBe(false);
      expect(result.current.error).toBeNull();
    });

    it('becomes ready when the link token arrives', () => {
      const { result, rerender, options } = setup({ linkToken: '' });
      rerender({ ...options, linkToken: TOKEN });
      expect(result.current.ready).toBe(true);
      expect(result.current.error).toBeNull();
    });

    it('is ready with a token of its environment, sandbox or production', () => {
      expect(setup().result.current.ready).toBe(true);
      expect(setup({ env: 'production', linkToken: 'link-production-abc' }).result.current.ready).toBe(true);
    });

    it('reports ENVIRONMENT_MISMATCH and is not ready when the token belongs to the other environment', () => {
      const { result, rerender, options } = setup({ linkToken: 'link-production-abc', env: 'sandbox' });
      expect(result.current.ready).toBe(false);
      expect(result.current.error).toEqual({
        code: 'ENVIRONMENT_MISMATCH',
        message: 'The link token belongs to the production environment, but env is "sandbox".',
      });
      rerender({ ...options, linkToken: TOKEN, env: 'production' });
      expect(result.current.error?.code).toBe('ENVIRONMENT_MISMATCH');
      rerender({ ...options, linkToken: TOKEN, env: 'sandbox' });
      expect(result.current).toMatchObject({ ready: true, error: null });
    });

    it('reports INVALID_LINK_TOKEN for a string that is not a link token', () => {
      const { result } = setup({ linkToken: 'public-sandbox-abc' });
      expect(result.current.ready).toBe(false);
      expect(result.current.error?.code).toBe('INVALID_LINK_TOKEN');
    });

    it('is not ready when backendUrl is not an absolute http(s) address', () => {
      const { result } = setup({ backendUrl: '/relative' });
      expect(result.current.ready).toBe(false);
      expect(result.current.error?.code).toBe('INTERNAL_ERROR');
    });
  });

  describe('open()', () => {
    it('warns and does nothing before ready', () => {
      const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
      const { result } = setup({ linkToken: '' });
      act(() => result.current.open());
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('before ready'));
      expect(openSpy).not.toHaveBeenCalled();
      expect(document.querySelector('iframe')).toBeNull();
    });

    it('opens {backendUrl}/link in a 420x720 popup, without the token in the URL', () => {
      const { result } = setup({ backendUrl: `${BACKEND}/` });
      act(() => result.current.open());
      expect(openSpy).toHaveBeenCalledTimes(1);
      const [url, name, features] = openSpy.mock.calls[0];
      expect(url).toBe(`${BACKEND}/link`);
      expect(name).toBe('agentlink');
      expect(features).toMatch(/width=420,height=720/);
      expect(String(url)).not.toContain(TOKEN);
    });

    it('focuses the open widget instead of opening a second one', () => {
      const { result } = setup();
      act(() => result.current.open());
      act(() => result.current.open());
      expect(openSpy).toHaveBeenCalledTimes(1);
      expect(popup.focus).toHaveBeenCalled();
    });
  });

  describe('handshake and messages', () => {
    it('answers agentlink:ready from the popup with agentlink:init {linkToken, env} to the backend origin only', () => {
      const { result } = setup();
      act(() => result.current.open());
      expect(popup.postMessage).not.toHaveBeenCalled();
      deliver({ type: 'agentlink:ready' }, popup);
      expect(popup.postMessage).toHaveBeenCalledTimes(1);
      expect(popup.postMessage).toHaveBeenCalledWith({ type: 'agentlink:init', linkToken: TOKEN, env: 'sandbox' }, ORIGIN);
    });

    it('ignores messages from another origin or another window', () => {
      const { result, options } = setup();
      act(() => result.current.open());
      deliver({ type: 'agentlink:ready' }, popup, 'http://evil.test');
      deliver({ type: 'agentlink:ready' }, window);
      deliver({ type: 'agentlink:success', publicToken: 'public-sandbox-x', metadata: METADATA }, popup, 'http://evil.test');
      deliver({ type: 'agentlink:success', publicToken: 'public-sandbox-x', metadata: METADATA }, fakePopup());
      deliver('agentlink:success', popup);
      expect(popup.postMessage).not.toHaveBeenCalled();
      expect(options.onSuccess).not.toHaveBeenCalled();
      expect(options.onError).not.toHaveBeenCalled();
    });

    it('calls onLoad once per open, when the widget says ready', () => {
      const onLoad = jest.fn();
      const { result } = setup({ onLoad });
      act(() => result.current.open());
      expect(onLoad).not.toHaveBeenCalled();
      deliver({ type: 'agentlink:ready' }, popup);
      deliver({ type: 'agentlink:ready' }, popup);
      expect(onLoad).toHaveBeenCalledTimes(1);
    });

    it('relays agentlink:event to onEvent', () => {
      const { result, options } = setup();
      act(() => result.current.open());
      deliver({ type: 'agentlink:event', eventName: 'SELECT_PROVIDER', metadata: { providerName: 'Orbit' } }, popup);
      expect(options.onEvent).toHaveBeenCalledWith('SELECT_PROVIDER', { providerName: 'Orbit' });
    });

    it('calls onSuccess(publicToken, metadata) once on agentlink:success, and nothing else after', () => {
      jest.useFakeTimers();
      const { result, options } = setup();
      act(() => result.current.open());
      deliver({ type: 'agentlink:ready' }, popup);
      deliver({ type: 'agentlink:success', publicToken: 'public-sandbox-abc', metadata: METADATA }, popup);
      expect(options.onSuccess).toHaveBeenCalledTimes(1);
      expect(options.onSuccess).toHaveBeenCalledWith('public-sandbox-abc', METADATA);
      expect(popup.close).toHaveBeenCalled();
      act(() => jest.advanceTimersByTime(10 * POPUP_POLL_MS));
      deliver({ type: 'agentlink:success', publicToken: 'public-sandbox-abc', metadata: METADATA }, popup);
      expect(options.onSuccess).toHaveBeenCalledTimes(1);
      expect(options.onError).not.toHaveBeenCalled();
      expect(result.current.error).toBeNull();
    });

    it('calls onError and onExit with the error of agentlink:exit, and keeps it in error while staying ready', () => {
      const { result, options } = setup();
      act(() => result.current.open());
      const error = { code: 'INVALID_CREDENTIALS', message: 'Wrong username or password.' };
      deliver({ type: 'agentlink:exit', error, metadata: { providerName: 'Orbit' } }, popup);
      expect(options.onError).toHaveBeenCalledWith(error);
      expect(options.onExit).toHaveBeenCalledWith(error, { providerName: 'Orbit' });
      expect(options.onSuccess).not.toHaveBeenCalled();
      expect(result.current).toMatchObject({ ready: true, error });
    });

    it('treats agentlink:exit without an error as the user closing the widget', () => {
      const { result, options } = setup();
      act(() => result.current.open());
      deliver({ type: 'agentlink:exit', error: null, metadata: {} }, popup);
      expect(options.onError).toHaveBeenCalledWith({ code: 'USER_CLOSED', message: expect.any(String) });
      expect(options.onExit).toHaveBeenCalledWith(null, {});
    });

    it("ends a paused run's widget with onExit(null, metadata) alone when the person did their part", () => {
      for (const outcome of ['DONE', 'APPROVED', 'DENIED'] as const) {
        popup = fakePopup();
        const { result, options, unmount } = setup({ linkToken: 'link-sandbox-paused-run' });
        act(() => result.current.open());
        deliver(
          { type: 'agentlink:event', eventName: 'OPEN_USER_ACTION', metadata: { agentRequestId: 'areq_1', linkSessionId: 'lks_7' } },
          popup,
        );
        expect(options.onEvent).toHaveBeenCalledWith('OPEN_USER_ACTION', { agentRequestId: 'areq_1', linkSessionId: 'lks_7' });
        deliver({ type: 'agentlink:exit', error: null, metadata: { agentRequestId: 'areq_1', userActionOutcome: outcome } }, popup);
        expect(options.onExit).toHaveBeenCalledTimes(1);
        expect(options.onExit).toHaveBeenCalledWith(null, { agentRequestId: 'areq_1', linkSessionId: 'lks_7', userActionOutcome: outcome });
        expect(options.onError).not.toHaveBeenCalled();
        expect(options.onSuccess).not.toHaveBeenCalled();
        expect(popup.close).toHaveBeenCalled();
        expect(result.current).toMatchObject({ ready: true, error: null });
        unmount();
      }
    });

    it("reports a paused run's step that is over, or a person who left it, through onError", () => {
      const { result, options } = setup();
      act(() => result.current.open());
      const ended = { code: 'USER_ACTION_ENDED', message: 'The task is no longer waiting for you.' };
      deliver({ type: 'agentlink:exit', error: ended, metadata: { agentRequestId: 'areq_1', userActionOutcome: null } }, popup);
      expect(options.onError).toHaveBeenCalledWith(ended);
      expect(options.onExit).toHaveBeenCalledWith(ended, { agentRequestId: 'areq_1', userActionOutcome: null });
      expect(result.current.error).toEqual(ended);

      popup = fakePopup();
      act(() => result.current.open());
      const left = { code: 'USER_CLOSED', message: 'The user closed the connect flow.' };
      deliver({ type: 'agentlink:exit', error: left, metadata: { agentRequestId: 'areq_1' } }, popup);
      expect(options.onError).toHaveBeenLastCalledWith(left);
    });

    it('uses the callbacks of the latest render', () => {
      const { result, rerender, options } = setup();
      act(() => result.current.open());
      const onSuccess = jest.fn();
      rerender({ ...options, onSuccess });
      deliver({ type: 'agentlink:success', publicToken: 'public-sandbox-abc', metadata: METADATA }, popup);
      expect(onSuccess).toHaveBeenCalledTimes(1);
      expect(options.onSuccess).not.toHaveBeenCalled();
    });
  });

  describe('closing', () => {
    it('reports USER_CLOSED when the user closes the popup', () => {
      jest.useFakeTimers();
      const { result, options } = setup();
      act(() => result.current.open());
      deliver({ type: 'agentlink:event', eventName: 'OPEN', metadata: { linkSessionId: 'lks_1' } }, popup);
      act(() => jest.advanceTimersByTime(3 * POPUP_POLL_MS));
      expect(options.onError).not.toHaveBeenCalled();
      popup.closed = true;
      act(() => jest.advanceTimersByTime(POPUP_POLL_MS + POPUP_CLOSE_GRACE_MS));
      expect(options.onError).toHaveBeenCalledTimes(1);
      expect(options.onError).toHaveBeenCalledWith({ code: 'USER_CLOSED', message: 'The user closed the connect widget.' });
      expect(options.onExit).toHaveBeenCalledWith(null, { linkSessionId: 'lks_1' });
      expect(result.current.error?.code).toBe('USER_CLOSED');
      expect(result.current.ready).toBe(true);
      expect(jest.getTimerCount()).toBe(0);
    });

    it('still takes a success that lands just after the popup closed itself', () => {
      jest.useFakeTimers();
      const { result, options } = setup();
      act(() => result.current.open());
      popup.closed = true;
      act(() => jest.advanceTimersByTime(POPUP_POLL_MS));
      deliver({ type: 'agentlink:success', publicToken: 'public-sandbox-abc', metadata: METADATA }, popup);
      act(() => jest.advanceTimersByTime(10 * POPUP_POLL_MS));
      expect(options.onSuccess).toHaveBeenCalledTimes(1);
      expect(options.onError).not.toHaveBeenCalled();
    });

    it('exit() closes the open widget from code: onError USER_CLOSED then onExit(null, metadata), once; a no-op when closed', () => {
      jest.useFakeTimers();
      const { result, options } = setup();
      act(() => result.current.exit());
      expect(options.onError).not.toHaveBeenCalled();
      act(() => result.current.open());
      deliver({ type: 'agentlink:event', eventName: 'OPEN', metadata: { linkSessionId: 'lks_9' } }, popup);
      act(() => result.current.exit());
      expect(popup.close).toHaveBeenCalled();
      expect(options.onError).toHaveBeenCalledTimes(1);
      expect(options.onError).toHaveBeenCalledWith({ code: 'USER_CLOSED', message: expect.any(String) });
      expect(options.onExit).toHaveBeenCalledWith(null, { linkSessionId: 'lks_9' });
      act(() => result.current.exit());
      act(() => jest.advanceTimersByTime(10 * POPUP_POLL_MS));
      deliver({ type: 'agentlink:success', publicToken: 'public-sandbox-late', metadata: METADATA }, popup);
      expect(options.onError).toHaveBeenCalledTimes(1);
      expect(options.onSuccess).not.toHaveBeenCalled();
      expect(jest.getTimerCount()).toBe(0);
    });

    it('clears a previous error when the widget is opened again', () => {
      const { result } = setup();
      act(() => result.current.open());
      deliver({ type: 'agentlink:exit', error: null, metadata: {} }, popup);
      expect(result.current.error?.code).toBe('USER_CLOSED');
      popup = fakePopup();
      act(() => result.current.open());
      expect(openSpy).toHaveBeenCalledTimes(2);
      expect(result.current.error).toBeNull();
    });
  });

  describe('popup blocked: in-page iframe modal', () => {
    beforeEach(() => {
      openSpy.mockImplementation(() => null);
    });

    function openOverlay() {
      const hook = setup();
      act(() => hook.result.current.open());
      const dialog = screen.getByRole('dialog');
      const iframe = dialog.querySelector('iframe')!;
      return { ...hook, dialog, iframe, frameWindow: iframe.contentWindow! };
    }

    it('mounts a modal dialog with an iframe of {backendUrl}/link', () => {
      const { dialog, iframe } = openOverlay();
      expect(dialog.getAttribute('aria-modal')).toBe('true');
      expect(iframe.getAttribute('src')).toBe(`${BACKEND}/link`);
    });

    it('does the handshake with the iframe and removes it on success', () => {
      const { frameWindow, options } = openOverlay();
      const post = jest.spyOn(frameWindow, 'postMessage').mockImplementation(() => undefined);
      deliver({ type: 'agentlink:ready' }, popup); // not the iframe
      expect(post).not.toHaveBeenCalled();
      deliver({ type: 'agentlink:ready' }, frameWindow);
      expect(post).toHaveBeenCalledWith({ type: 'agentlink:init', linkToken: TOKEN, env: 'sandbox' }, ORIGIN);
      deliver({ type: 'agentlink:success', publicToken: 'public-sandbox-abc', metadata: METADATA }, frameWindow);
      expect(options.onSuccess).toHaveBeenCalledWith('public-sandbox-abc', METADATA);
      expect(screen.queryByRole('dialog')).toBeNull();
    });

    it('closes on Escape with USER_CLOSED', () => {
      const { options, result } = openOverlay();
      act(() => {
        fireEvent.keyDown(document, { key: 'Escape' });
      });
      expect(screen.queryByRole('dialog')).toBeNull();
      expect(options.onError).toHaveBeenCalledWith({ code: 'USER_CLOSED', message: expect.any(String) });
      expect(result.current.error?.code).toBe('USER_CLOSED');
    });

    it('closes with its close button', () => {
      const { options } = openOverlay();
      act(() => {
        fireEvent.click(screen.getByRole('button', { name: 'Close' }));
      });
      expect(screen.queryByRole('dialog')).toBeNull();
      expect(options.onError).toHaveBeenCalledTimes(1);
    });
  });

  describe('cleanup', () => {
    it('on unmount removes its listener, stops polling and closes the popup, calling nothing', () => {
      jest.useFakeTimers();
      const removeListener = jest.spyOn(window, 'removeEventListener');
      const { result, unmount, options } = setup();
      act(() => result.current.open());
      expect(jest.getTimerCount()).toBe(1);
      unmount();
      expect(removeListener).toHaveBeenCalledWith('message', expect.any(Function));
      expect(jest.getTimerCount()).toBe(0);
      expect(popup.close).toHaveBeenCalled();
      deliver({ type: 'agentlink:success', publicToken: 'public-sandbox-abc', metadata: METADATA }, popup);
      expect(options.onSuccess).not.toHaveBeenCalled();
      expect(options.onError).not.toHaveBeenCalled();
    });

    it('on unmount removes the iframe modal', () => {
      openSpy.mockImplementation(() => null);
      const { result, unmount } = setup();
      act(() => result.current.open());
      expect(screen.getByRole('dialog')).toBeTruthy();
      unmount();
      expect(screen.queryByRole('dialog')).toBeNull();
    });

    it('a new link token closes the open widget without callbacks; the old window is no longer heard', () => {
      const { result, rerender, options } = setup();
      act(() => result.current.open());
      const first = popup;
      rerender({ ...options, linkToken: 'link-sandbox-other' });
      expect(first.close).toHaveBeenCalled();
      deliver({ type: 'agentlink:ready' }, first);
      expect(first.postMessage).not.toHaveBeenCalled();
      expect(options.onError).not.toHaveBeenCalled();
      popup = fakePopup();
      act(() => result.current.open());
      deliver({ type: 'agentlink:ready' }, popup);
      expect(popup.postMessage).toHaveBeenCalledWith({ type: 'agentlink:init', linkToken: 'link-sandbox-other', env: 'sandbox' }, ORIGIN);
    });
  });

  it('drives a component: the button is disabled until ready, then opens the widget', () => {
    const { rerender } = render(<Connect linkToken="" />);
    const button = screen.getByRole('button', { name: 'Connect account' }) as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    rerender(<Connect linkToken={TOKEN} />);
    expect(button.disabled).toBe(false);
    fireEvent.click(button);
    expect(openSpy).toHaveBeenCalledWith(`${BACKEND}/link`, 'agentlink', expect.any(String));
  });
});
