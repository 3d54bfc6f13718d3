import { createHash } from 'node:crypto';

/** Class names that look generated, like a real site's CSS-in-JS output. */
export function cx(name: string): string {
  return `_${createHash('sha256').update(`cls:${name}`).digest('hex').slice(0, 6)}`;
}
