import type { RunHandoff } from '../../agent/handoff/run-handoff';
import { fail, ok, type Result } from '../../domain/errors';
import { hashToken } from '../../domain/tokens';
import type { LinkTokenRecord } from '../../store';
import type { LinkSessionService } from '../link-session.service';
import type { WidgetSize } from './frame-size';
import type { InputMessage, RunStateMessage } from './live-protocol';
import { LiveSession, type LiveSink } from './live-session';

/**
 * The live views of paused agent runs: the widget, opened with a run's link token, is shown the run's own page (its
 * fenced context, as the run sees it), with the reason it waits. The person's pointer and keys reach the page only
 * while that token's ask is open and is a step on the page (a held write's view is a picture); once they answer (or the run sees the step done) the view shows the run going on,
 * until the run ends or the view idles out. The page is the run's: a view never resizes, navigates or closes it.
 */
interface RunView {
  session: LiveSession;
  run: RunHandoff;
  token: LinkTokenRecord;
  off: () => void;
}

export class RunLiveViews {
  private readonly views = new Map<string, RunView>();

  constructor(
    private readonly deps: { linkSessions: Pick<LinkSessionService, 'authorizeRunView'> },
    private readonly opts: { maxViews: number; idleMs: number },
  ) {}

  get openCount(): number {
    return this.views.size;
  }

  has(linkSessionId: string): boolean {
    const v = this.views.get(linkSessionId);
    return !!v && !v.session.isEnded;
  }

  async connect(linkToken: string, linkSessionId: string, widget: WidgetSize, sink: LiveSink): Promise<Result<void>> {
    const auth = await this.deps.linkSessions.authorizeRunView(linkToken, linkSessionId);
    if (!auth.ok) return auth;
    const { run, token } = auth.value;
    // A token whose ask is over watches the run no more (a view already open goes on showing it until it closes). Its
    // widget is told the run works on, so it ends its part as it would have on the open view.
    if (!askOpen(run, token)) {
      sink.send(stateOf(run, token));
      return fail('USER_ACTION_OVER', 'The task is not waiting for you any more.');
    }
    const existing = this.views.get(linkSessionId);
    if (existing && !existing.session.isEnded && existing.session.livePage === run.page()) {
      existing.session.attach(sink);
      sink.send(stateOf(run, token));
      return ok(undefined);
    }
    await existing?.session.end('LIVE_REPLACED', 'The view moved to another page.');
    if (this.views.size >= this.opts.maxViews)
      return fail('LIVE_SESSIONS_FULL', 'Too many views are open right now. Try again in a minute.');
    const opened = await this.open(linkSessionId, run, token, widget);
    if (!opened.ok) return opened;
    opened.value.attach(sink);
    sink.send(stateOf(run, token));
    return ok(undefined);
  }

  input(linkSessionId: string, sink: LiveSink, message: InputMessage): boolean {
    // A paused run's view never asks for a passkey: no answer to one is taken.
    if (message.t === 'passkey') return false;
    const v = this.views.get(linkSessionId);
    return !!v && v.session.isAttached(sink) && v.session.input(message);
  }

  detach(linkSessionId: string, sink: LiveSink): void {
    this.views.get(linkSessionId)?.session.detach(sink);
  }

  /** The live page of a view (tests and the bench play the person through the widget, and look at what it shows). */
  inspect(linkSessionId: string) {
    return this.views.get(linkSessionId)?.session.livePage ?? null;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.views.values()].map((v) => v.session.end('LIVE_SESSION_CLOSED', 'The view was closed.')));
  }

  // ---------- internals ----------

  private async open(linkSessionId: string, run: RunHandoff, token: LinkTokenRecord, widget: WidgetSize): Promise<Result<LiveSession>> {
    const page = run.page();
    if (!page || page.isClosed()) return fail('USER_ACTION_OVER', 'The task’s page is not open any more.');
    let session: LiveSession;
    try {
      session = await LiveSession.start({
        linkSessionId,
        context: page.context(),
        page,
        provider: run.provider,
        policy: run.policy,
        startUrl: null,
        viewport: widget, // used only if the page has no size of its own
        widget,
        idleMs: this.opts.idleMs,
        until: new Date(Date.now() + 24 * 3600_000), // the run's end ends the view; its idle timer bounds it meanwhile
        borrowed: { inputAllowed: () => inputOpen(run, token), lastFrame: () => run.lastFrame() },
        events: {
          onEnded: () => {
            const v = this.views.get(linkSessionId);
            if (v?.session === session) {
              v.off();
              this.views.delete(linkSessionId);
            }
          },
        },
      });
    } catch {
      return fail('PROVIDER_UNAVAILABLE', 'The task’s page could not be shown. Try again in a moment.');
    }
    const off = run.onEvent((e) => {
      if (e.kind === 'ended') {
        session.notify('RUN_ENDED', 'The task finished.');
        void session.end('RUN_ENDED', 'The task finished.');
        return;
      }
      // The person's ask is over and the run goes on under the view: whole frames again, so the run's page is left
      // whole for its next still and for the next ask's view.
      if (!askOpen(run, token)) session.wholeFrames();
      session.send(stateOf(run, token));
    });
    this.views.set(linkSessionId, { session, run, token, off });
    return ok(session);
  }
}

/** Whether this link token's ask is the one the run waits on now (its person may act on the page). */
function askOpen(run: RunHandoff, token: LinkTokenRecord): boolean {
  const current = run.current;
  return !!current && hashToken(current.linkToken) === token.tokenHash;
}

/**
 * Whether the person's pointer and keys reach the page: only while this token's ask is open and it is a step done on
 * the page. A held write's view is a picture: a tap there could navigate the page away from the write it is about.
 */
function inputOpen(run: RunHandoff, token: LinkTokenRecord): boolean {
  return askOpen(run, token) && run.current?.reason !== 'APPROVAL';
}

function stateOf(run: RunHandoff, token: LinkTokenRecord): RunStateMessage {
  const current = run.current;
  if (!askOpen(run, token) || !current) return { type: 'run', state: 'working', ask: null };
  return {
    type: 'run',
    state: 'waiting',
    ask: { reason: current.reason, message: current.message, expiresAt: current.expiresAt, write: current.write },
  };
}
