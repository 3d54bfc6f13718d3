/**
 * Shares reads of the same key among concurrent callers without ever answering a caller with a value read before
 * it asked.
 *
 * At most one read per key runs at a time. A caller that asks while one runs does not join it (it may have read
 * the row before a write the caller already saw commit: a disabled organization, a rotated secret); it waits for the
 * next read, which starts once the running one ends, so after the caller asked, and which every caller that arrived
 * meanwhile shares. Each caller therefore sees every write committed before it asked, exactly as with a read of its
 * own, while a burst of N calls costs about two reads instead of N.
 */
export class FreshReads<K, V> {
  private readonly running = new Map<K, Promise<V>>();
  private readonly queued = new Map<K, Promise<V>>();

  constructor(private readonly read: (key: K) => Promise<V>) {}

  get(key: K): Promise<V> {
    const queued = this.queued.get(key);
    if (queued) return queued;
    const running = this.running.get(key);
    if (!running) return this.start(key);
    const next = running.then(settled, settled).then(() => {
      this.queued.delete(key);
      return this.start(key);
    });
    this.queued.set(key, next);
    return next;
  }

  private start(key: K): Promise<V> {
    let read: Promise<V>;
    try {
      read = this.read(key);
    } catch (err) {
      read = Promise.reject(err as Error);
    }
    this.running.set(key, read);
    const done = () => {
      if (this.running.get(key) === read) this.running.delete(key);
    };
    read.then(done, done);
    return read;
  }
}

const settled = () => undefined;
