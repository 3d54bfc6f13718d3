/**
 * A small reader of multipart/form-data bodies (RFC 7578), for summarizing a held write (write-summary.ts): the parts'
 * names, file names and contents, nothing more. Written here rather than taken from a library because none is among
 * our dependencies, and what a summary needs is this much: the body is already whole in memory (bounded by the hold
 * limit), so the parts are found with Buffer.indexOf (linear; no regular expression runs over the body).
 */
export interface FormPart {
  name: string;
  /** Set when the part is a file (its Content-Disposition names a filename, possibly empty). */
  filename: string | null;
  content: Buffer;
}

const CRLF = Buffer.from('\r\n');
const HEADERS_END = Buffer.from('\r\n\r\n');
/** RFC 2046 §5.1.1: a boundary is 1 to 70 characters. */
const MAX_BOUNDARY = 70;
/** The headers of one part (Content-Disposition, Content-Type): a browser sends a few hundred bytes. */
const MAX_PART_HEADERS = 8 * 1024;

/** The boundary a `multipart/form-data; boundary=…` content type names, or null. */
export function multipartBoundary(contentType: string): string | null {
  const boundary = parameters(contentType).get('boundary');
  return boundary && boundary.length <= MAX_BOUNDARY ? boundary : null;
}

/** The parts of a multipart/form-data body, in order, or null when it is not well formed (or cut short). */
export function formParts(body: Buffer, boundary: string): FormPart[] | null {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: FormPart[] = [];
  let at = body.indexOf(delimiter);
  if (at < 0) return null;
  for (;;) {
    at += delimiter.length;
    // The close delimiter ends the body (an epilogue after it is ignored, as is the preamble before the first).
    if (body[at] === 0x2d && body[at + 1] === 0x2d) return parts;
    const lineEnd = body.indexOf(CRLF, at);
    if (lineEnd < 0) return null;
    // Searched from the delimiter line's own CRLF, so a part without headers is found too.
    const headersEnd = body.indexOf(HEADERS_END, lineEnd);
    if (headersEnd < 0 || headersEnd - lineEnd > MAX_PART_HEADERS) return null;
    const contentStart = headersEnd + HEADERS_END.length;
    const next = body.indexOf(Buffer.concat([CRLF, delimiter]), headersEnd);
    if (next < 0) return null;
    parts.push(part(body.subarray(lineEnd + CRLF.length, headersEnd).toString('utf8'), body.subarray(Math.min(contentStart, next), next)));
    at = next + CRLF.length;
  }
}

function part(headers: string, content: Buffer): FormPart {
  const disposition = headers
    .split('\r\n')
    .find((line) => line.toLowerCase().startsWith('content-disposition:'))
    ?.slice('content-disposition:'.length);
  const params = parameters(disposition ?? '');
  return { name: params.get('name') ?? '', filename: params.get('filename') ?? null, content };
}

/**
 * The `; key=value` parameters of a header value (the first item, the type itself, skipped), keys lower-cased, quoted
 * values unquoted (RFC 9110 §5.6.4: a backslash escapes the next character).
 */
function parameters(value: string): Map<string, string> {
  const params = new Map<string, string>();
  let at = value.indexOf(';');
  while (at >= 0) {
    const eq = value.indexOf('=', at);
    if (eq < 0) break;
    // A parameter without a value (`; foo;`) is skipped, not read up to the next one's `=`.
    const nextItem = value.indexOf(';', at + 1);
    if (nextItem >= 0 && nextItem < eq) {
      at = nextItem;
      continue;
    }
    const key = value
      .slice(at + 1, eq)
      .trim()
      .toLowerCase();
    let end = eq + 1;
    while (value[end] === ' ') end += 1;
    let text = '';
    if (value[end] === '"') {
      for (end += 1; end < value.length && value[end] !== '"'; end += 1) {
        if (value[end] === '\\') end += 1;
        text += value[end] ?? '';
      }
      end += 1;
    } else {
      const stop = value.indexOf(';', end);
      text = value.slice(end, stop < 0 ? value.length : stop).trim();
      end = stop < 0 ? value.length : stop;
    }
    if (key && !params.has(key)) params.set(key, text);
    at = value.indexOf(';', end);
  }
  return params;
}
