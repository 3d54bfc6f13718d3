import sqlite3 from 'sqlite3';

/** Pages the WAL may reach before the serving connection checkpoints inline anyway (a backstop, ~40 MB). */
export const INLINE_CHECKPOINT_PAGES = 10_000;
const INTERVAL_MS = 500;

/**
 * WAL checkpoints off the request path, for the embedded SQLite store.
 *
 * By default SQLite checkpoints inside the commit that pushes the WAL past 1000 pages, on the connection
 * that serves requests: copying the pages back and fsyncing the database file holds that connection for
 * as long as the disk takes (5–30 ms on the bench machine), and every query of every request in flight
 * waits behind it. Here a second connection checkpoints every half second in PASSIVE mode, which never
 * waits for or blocks readers and writers; the serving connection only checkpoints itself if the WAL
 * still reaches INLINE_CHECKPOINT_PAGES (the checkpointer stopped or cannot keep up).
 */
export class SqliteCheckpointer {
  private timer?: NodeJS.Timeout;
  private running = false;
  private closed = false;

  private constructor(private readonly db: sqlite3.Database) {}

  static async start(file: string, onError: (err: Error) => void = () => undefined): Promise<SqliteCheckpointer> {
    const db = await new Promise<sqlite3.Database>((resolve, reject) => {
      const d = new sqlite3.Database(file, sqlite3.OPEN_READWRITE, (err) => (err ? reject(err) : resolve(d)));
    });
    db.configure('busyTimeout', 5000);
    const checkpointer = new SqliteCheckpointer(db);
    checkpointer.timer = setInterval(() => {
      checkpointer.checkpoint().catch(onError);
    }, INTERVAL_MS);
    checkpointer.timer.unref();
    return checkpointer;
  }

  /** One PASSIVE checkpoint (skipped when the previous one still runs); resolves with the WAL's page counts. */
  async checkpoint(): Promise<{ walPages: number; checkpointedPages: number } | null> {
    if (this.running || this.closed) return null;
    this.running = true;
    try {
      const row = await new Promise<{ log: number; checkpointed: number }>((resolve, reject) =>
        this.db.get('PRAGMA wal_checkpoint(PASSIVE)', (err: Error | null, r: { log: number; checkpointed: number }) =>
          err ? reject(err) : resolve(r),
        ),
      );
      return { walPages: row.log, checkpointedPages: row.checkpointed };
    } finally {
      this.running = false;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await new Promise<void>((resolve) => this.db.close(() => resolve()));
  }
}
