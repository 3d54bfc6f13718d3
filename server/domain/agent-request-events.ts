import { EventEmitter } from 'node:events';

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

  finished(requestId: string) {
    this.emitter.emit(`finished:${requestId}`);
  }
  onFinished(requestId: string, fn: () => void): () => void {
    this.emitter.on(`finished:${requestId}`, fn);
    return () => this.emitter.off(`finished:${requestId}`, fn);
  }
}
