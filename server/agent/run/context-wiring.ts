import type { Frame } from 'playwright-core';

import type { ChangeGate, EgressBlock } from '../../egress/egress-proxy';
import type { BlockedRequest } from './network-guard';

/** What a context's fence tells the run that holds the context, and asks of it. */
export interface RunPort {
  /** A refusal of the context's egress proxy. */
  onBlocked(block: EgressBlock): void;
  /** A request that may change something, or a WebSocket message, went out. */
  onChangeSent(): void;
  /** The page's view of a refused request (network-guard.ts watchRefusals), with its frame and kind. */
  report(b: BlockedRequest): void;
  /** The run's current top frame: a refused navigation of it decides how the run fails. */
  mainFrame(): Frame | undefined;
}

const IDLE = 'no run holds this browser context';

/**
 * Where a context's fence reports. The fence (egress proxy, the page's view of its refusals) is installed once, when the context opens; a
 * context kept warm between runs (warm-contexts.ts) serves one run after another, so its fence reports to whichever run
 * holds it now. Between runs no run holds it: every change, read and message is refused, and nothing is counted for
 * anyone (a page's keep-alive request that outlives its run cannot land in the next run's trace or go out unseen).
 */
export class ContextWiring implements ChangeGate {
  private port: RunPort | null = null;
  readonly approve?: ChangeGate['approve'];
  /** When the fence last heard from the context while no run held it (ms since the epoch; 0: never). */
  lastIdleActivity = 0;

  /** `runGate`: what the context's runs may change (fixed by the context's mode: read mode refuses every write). */
  constructor(private readonly runGate: ChangeGate | undefined) {
    // Approval runs never share a context (their gate waits on one person's answers), so it is the same run's throughout.
    if (runGate?.approve) this.approve = runGate.approve.bind(runGate);
  }

  /** The gate the context's egress proxy asks: the run's while one holds the context, refuse-all between runs. */
  request(method: string, url: URL): string | null {
    return this.port ? (this.runGate?.request(method, url) ?? null) : this.idle();
  }

  /** Reads too are refused between runs: a worker that outlives its run (a service worker) must not poll with the session. */
  read(): string | null {
    return this.port ? null : this.idle();
  }

  get webSocketMessages(): string | null {
    return this.port ? (this.runGate?.webSocketMessages ?? null) : this.idle();
  }

  /** Something reached the fence while no run held the context: noted (a kept context rests until quiet), refused. */
  private idle(): string {
    this.lastIdleActivity = Date.now();
    return IDLE;
  }

  attach(port: RunPort): void {
    this.port = port;
  }

  detach(): void {
    this.port = null;
  }

  get attached(): boolean {
    return this.port !== null;
  }

  readonly onBlocked = (block: EgressBlock) => (this.port ? this.port.onBlocked(block) : this.idle());
  readonly onChangeSent = () => (this.port ? this.port.onChangeSent() : this.idle());
  readonly report = (b: BlockedRequest) => (this.port ? this.port.report(b) : this.idle());
  readonly mainFrame = () => this.port?.mainFrame();
}
