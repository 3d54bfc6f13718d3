/**
 * What the model must never read. Applied to every string of an observation before it leaves this module:
 *   1. secrets (cookie values, credentials) → "[secret]"
 *   2. parameter values → their placeholder ("{{parameters.text}}"), so values reach the model only by name
 *   3. anything that looks like a token (32+ characters of base64url with upper, lower case and digits) → "[token]"
 */
export interface Placeholder {
  value: string;
  placeholder: string;
}

export const SECRET_MASK = '[secret]';
export const TOKEN_MASK = '[token]';

const MIN_SECRET_LENGTH = 6;
const MIN_PLACEHOLDER_VALUE_LENGTH = 3;
const TOKEN_PATTERN = /(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[a-z])(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{32,}(?![A-Za-z0-9_-])/g;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const WORD = /[\p{L}\p{N}_]/u;

export class Redactor {
  private readonly secrets: string[];
  private readonly placeholders: { pattern: RegExp; placeholder: string }[];

  constructor(opts: { secrets?: Iterable<string>; placeholders?: Placeholder[] } = {}) {
    this.secrets = [...new Set([...(opts.secrets ?? [])].filter((s) => s.length >= MIN_SECRET_LENGTH))].sort((a, b) => b.length - a.length);
    this.placeholders = (opts.placeholders ?? [])
      .filter((p) => p.value.length >= MIN_PLACEHOLDER_VALUE_LENGTH)
      .sort((a, b) => b.value.length - a.value.length)
      .map((p) => {
        // A value that starts or ends with a letter or digit is only replaced as a whole word: "Ada" not inside "Adam".
        const pre = WORD.test(p.value[0]!) ? '(?<![\\p{L}\\p{N}_])' : '';
        const post = WORD.test(p.value[p.value.length - 1]!) ? '(?![\\p{L}\\p{N}_])' : '';
        return { pattern: new RegExp(`${pre}${escapeRegExp(p.value)}${post}`, 'gu'), placeholder: p.placeholder };
      });
  }

  text(s: string): string {
    let out = s;
    for (const secret of this.secrets) if (out.includes(secret)) out = out.split(secret).join(SECRET_MASK);
    for (const p of this.placeholders) out = out.replace(p.pattern, p.placeholder);
    return out.replace(TOKEN_PATTERN, TOKEN_MASK);
  }
}
