/** Messages a bench server child sends to the bench parent over the fork IPC channel. */
export type ServerMessage =
  { type: 'ready'; port: number; clientId?: string; sandboxSecret?: string; caPem?: string } | { type: 'fatal'; message: string };

/** Reads the port the parent chose for this child; it only ever listens on 127.0.0.1. */
export function portFromEnv(): number {
  const port = Number(process.env.BENCH_PORT);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new Error('BENCH_PORT must be set to a TCP port');
  return port;
}

export function send(message: ServerMessage) {
  if (process.send) process.send(message);
}

/** A child must never outlive the bench: exit when the parent's IPC channel goes away. */
export function exitWithParent() {
  process.on('disconnect', () => process.exit(0));
}
