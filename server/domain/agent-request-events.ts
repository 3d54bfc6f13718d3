import { EventEmitter } from 'node:events';

import type { Owner } from '../store';

/**
 * In-process signals about agent requests: a new request was queued, a cancel was asked, a request ended.
 * They only shorten waits inside one process (wake the local worker, end a waitMs early, abort a local run
 * at once); every decision still comes from the database, which other processes poll.
 */
export class AgentRequestEvents {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  enqueued(requestId: string) {
    this.emitter.emit('enqueued', requestId);
  }
  onEnqueued(fn: (requestId: string) => void): () => void {
    this.emitter.on('enqueued', fn);
    return () => this.emitter.off('enqueued', fn);
  }

  cancelRequested(requestId: string) {
    this.emitter.emit(`cancel:${requestId}`);
  }
  onCancelRequested(requestId: string, fn: () => void): () => void {
    this.emitter.on(`cancel:${requestId}`, fn);
    return () => this.emitter.off(`cancel:${requestId}`, fn);
  }

  /** `owner`, when the caller has it: whose request it is (webhook events read that owner's endpoints first). */
  finished(requestId: string, owner?: Owner) {
    this.emitter.emit(`finished:${requestId}`);
    this.emitter.emit('finished', requestId, owner);
  }

  /** The request paused NEEDS_USER (its waiters answer: the caller has to bring the user in). */
  needsUser(requestId: string) {
    this.emitter.emit(`finished:${requestId}`);
  }
  /** Every request that this process moved to a final status (webhook events hang off this). */
  onAnyFinished(fn: (requestId: string, owner?: Owner) => void): () => void {
    this.emitter.on('finished', fn);
    return () => this.emitter.off('finished', fn);
  }
  /** The request reached a final status, or NEEDS_USER: whatever a waiting reader must see. */
  onFinished(requestId: string, fn: () => void): () => void {
    this.emitter.on(`finished:${requestId}`, fn);
    return () => this.emitter.off(`finished:${requestId}`, fn);
  }
}
