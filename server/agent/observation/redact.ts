import { defusePlaceholders } from './untrusted';

/**
 * What the model must never read. Applied to every string of an observation before it leaves this module:
 *   1. secrets (cookie values, the connection's stored credentials given by the worker) of any length →
 *      "[secret]": 6+ characters wherever they appear, 3 to 5 characters only as a whole word ("abc" not inside
 *      "abcdef"), 1 or 2 characters only as a whole string (a field value or text that is exactly the secret),
 *      so short values do not mangle the page
 *   2. placeholder syntax the page itself wrote is broken up ("{{" → "{ {"): only step 3 makes placeholders
 *   3. parameter values → their placeholder ("{{parameters.text}}"), so values reach the model only by name
 *   4. anything that looks like a token (32+ characters of base64url with upper, lower case and digits) → "[token]"
 */
export interface Placeholder {
  value: string;
  placeholder: string;
}

export const SECRET_MASK = '[secret]';
export const TOKEN_MASK = '[token]';

const SUBSTRING_SECRET_LENGTH = 6;
const WORD_SECRET_LENGTH = 3;
const MIN_PLACEHOLDER_VALUE_LENGTH = 3;
const TOKEN_PATTERN =
  /(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[a-z])(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{32,}(?![A-Za-z0-9_-])/g;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const WORD = /[\p{L}\p{N}_]/u;

/** Matches the value, as a whole word where it starts or ends with a letter, digit or underscore. */
function wholeWord(value: string): RegExp {
  const pre = WORD.test(value[0]!) ? '(?<![\\p{L}\\p{N}_])' : '';
  const post = WORD.test(value[value.length - 1]!) ? '(?![\\p{L}\\p{N}_])' : '';
  return new RegExp(`${pre}${escapeRegExp(value)}${post}`, 'gu');
}

export class Redactor {
  private readonly secrets: string[];
  private readonly wordSecrets: RegExp[];
  private readonly wholeSecrets: Set<string>;
  private readonly placeholders: { pattern: RegExp; placeholder: string }[];

  constructor(opts: { secrets?: Iterable<string>; placeholders?: Placeholder[] } = {}) {
    const all = [...new Set([...(opts.secrets ?? [])].filter((s) => typeof s === 'string' && s.length > 0))].sort(
      (a, b) => b.length - a.length,
    );
    this.secrets = all.filter((s) => s.length >= SUBSTRING_SECRET_LENGTH);
    this.wordSecrets = all.filter((s) => s.length >= WORD_SECRET_LENGTH && s.length < SUBSTRING_SECRET_LENGTH).map((s) => wholeWord(s));
    this.wholeSecrets = new Set(all.filter((s) => s.length < WORD_SECRET_LENGTH));
    this.placeholders = (opts.placeholders ?? [])
      .filter((p) => p.value.length >= MIN_PLACEHOLDER_VALUE_LENGTH)
      .sort((a, b) => b.value.length - a.value.length)
      .map((p) => {
        // A value that starts or ends with a letter or digit is only replaced as a whole word: "Ada" not inside "Adam".
        return { pattern: wholeWord(p.value), placeholder: p.placeholder };
      });
  }

  text(s: string): string {
    let out = defusePlaceholders(this.maskSecrets(s));
    for (const p of this.placeholders) out = out.replace(p.pattern, p.placeholder);
    return out.replace(TOKEN_PATTERN, TOKEN_MASK);
  }

  /** Step 1 only: for text that is ours but may quote a secret (trace entries, error messages). */
  maskSecrets(s: string): string {
    if (this.wholeSecrets.has(s) || this.wholeSecrets.has(s.trim())) return SECRET_MASK;
    let out = s;
    for (const secret of this.secrets) if (out.includes(secret)) out = out.split(secret).join(SECRET_MASK);
    for (const pattern of this.wordSecrets) out = out.replace(pattern, SECRET_MASK);
    return out;
  }

  /** Whether a text holds any secret (a stored trajectory must not). */
  holdsSecret(s: string): boolean {
    return this.maskSecrets(s) !== s;
  }
}
