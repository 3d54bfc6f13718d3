import type { HeldWrite } from '../../server/egress/change-gate';
import { MAX_FIELDS, summarizeWrite } from '../../server/egress/write-summary';

/**
 * The summary a person reads before approving a held write: what it would send, as fields, with the caller's masking
 * applied to every value (body and query alike) before anything is cut, and bounded whatever the page sent.
 */
const write = (contentType: string | null, body: string | Buffer, extra: Partial<HeldWrite> = {}): HeldWrite => ({
  method: 'POST',
  url: 'https://app.example/api/send',
  realm: 'page',
  contentType,
  body: Buffer.from(body),
  ...extra,
});

const keep = (_name: string, value: string) => value;
/** Masks what the caller knows to be secret: the `password` and `token` fields, and the value `s3cret` anywhere. */
const mask = (name: string, value: string) => (/password|token/i.test(name) ? '••••' : value.replaceAll('s3cret', '{{secret}}'));

describe('summarizeWrite', () => {
  it('reads a form body as its fields, masked', () => {
    expect(
      summarizeWrite(write('application/x-www-form-urlencoded; charset=UTF-8', 'user=ann&password=hunter2&note=a+b%26c'), mask),
    ).toEqual({
      method: 'POST',
      url: 'https://app.example/api/send',
      fields: [
        { name: 'user', value: 'ann' },
        { name: 'password', value: '••••' },
        { name: 'note', value: 'a b&c' },
      ],
      bodyBytes: 38,
    });
  });

  it('flattens JSON to dotted paths and indexed arrays, in document order', () => {
    const body = JSON.stringify({
      message: { text: 'hi s3cret', to: ['ann', 'bob'] },
      items: [{ x: 1 }, { x: null }],
      ok: true,
      empty: {},
      none: [],
    });
    expect(summarizeWrite(write('application/json', body), mask).fields).toEqual([
      { name: 'message.text', value: 'hi {{secret}}' },
      { name: 'message.to[0]', value: 'ann' },
      { name: 'message.to[1]', value: 'bob' },
      { name: 'items[0].x', value: '1' },
      { name: 'items[1].x', value: 'null' },
      { name: 'ok', value: 'true' },
      { name: 'empty', value: '{}' },
      { name: 'none', value: '[]' },
    ]);
    expect(summarizeWrite(write('application/vnd.api+json', '[{"id":7}]'), keep).fields).toEqual([{ name: '[0].id', value: '7' }]);
    expect(summarizeWrite(write('application/json', '"just a string"'), keep).fields).toEqual([{ name: 'body', value: 'just a string' }]);
  });

  it('shows a JSON body that does not parse as its text', () => {
    expect(summarizeWrite(write('application/json', '{"broken": '), keep).fields).toEqual([{ name: 'body', value: '{"broken": ' }]);
  });

  it('walks JSON nested half a million levels deep without recursion, shown cut at depth', () => {
    const deep = `${'['.repeat(500_000)}1${']'.repeat(500_000)}`;
    const [field] = summarizeWrite(write('application/json', deep), keep).fields;
    expect(field!.name.startsWith('[0][0]')).toBe(true);
    expect(field!.value).toBe('[…]');
  });

  it('reads multipart form data: fields with their values, files by name and size', () => {
    const boundary = '----WebKitFormBoundary7MA4YWxkTrZu0gW';
    const body = [
      `--${boundary}`,
      'Content-Disposition: form-data; name="subject"',
      '',
      'Hello s3cret',
      `--${boundary}`,
      'Content-Disposition: form-data; name="attachment"; filename="report.pdf"',
      'Content-Type: application/pdf',
      '',
      '%PDF-1.7 twelve',
      `--${boundary}`,
      'Content-Disposition: form-data; name="token"',
      '',
      'abc',
      `--${boundary}`,
      'Content-Disposition: form-data; name="empty"',
      '',
      '',
      `--${boundary}--`,
      '',
    ].join('\r\n');
    expect(summarizeWrite(write(`multipart/form-data; boundary=${boundary}`, body), mask).fields).toEqual([
      { name: 'subject', value: 'Hello {{secret}}' },
      { name: 'attachment', value: '<file report.pdf, 15 bytes>' },
      { name: 'token', value: '••••' },
      { name: 'empty', value: '' },
    ]);
  });

  it('reads quoted multipart parameters (a quoted boundary, an escaped quote in a name)', () => {
    const body = '--b"x\r\nContent-Disposition: form-data; name="say \\"hi\\""\r\n\r\nyes\r\n--b"x--\r\n';
    expect(summarizeWrite(write('multipart/form-data; boundary="b\\"x"', body), keep).fields).toEqual([{ name: 'say "hi"', value: 'yes' }]);
  });

  it('shows a multipart body it cannot read (no boundary, cut short) by its size', () => {
    const cutShort = '--b\r\nContent-Disposition: form-data; name="a"\r\n\r\nno end';
    expect(summarizeWrite(write('multipart/form-data', cutShort), keep).fields).toEqual([
      { name: 'body', value: '<55 bytes of multipart/form-data>' },
    ]);
    expect(summarizeWrite(write('multipart/form-data; boundary=b', cutShort), keep).fields).toEqual([
      { name: 'body', value: '<55 bytes of multipart/form-data>' },
    ]);
  });

  it('shows text as one field, anything else by its size and type', () => {
    expect(summarizeWrite(write('text/plain;charset=UTF-8', 'hello s3cret'), mask).fields).toEqual([
      { name: 'body', value: 'hello {{secret}}' },
    ]);
    expect(summarizeWrite(write('image/png', Buffer.alloc(2048)), keep).fields).toEqual([
      { name: 'body', value: '<2048 bytes of image/png>' },
    ]);
    expect(summarizeWrite(write(null, 'x'), keep).fields).toEqual([{ name: 'body', value: '<1 byte of unknown type>' }]);
    expect(summarizeWrite(write(null, ''), keep)).toMatchObject({ fields: [], bodyBytes: 0 });
  });

  it('reads a WebSocket message as JSON or text when it is, by its size when it is binary', () => {
    const message = (body: string | Buffer) => write(null, body, { method: 'WEBSOCKET', url: 'wss://app.example/socket' });
    expect(summarizeWrite(message('{"op":"send","text":"hi"}'), keep).fields).toEqual([
      { name: 'op', value: 'send' },
      { name: 'text', value: 'hi' },
    ]);
    expect(summarizeWrite(message('plain words'), keep).fields).toEqual([{ name: 'body', value: 'plain words' }]);
    expect(summarizeWrite(message(Buffer.from([0xff, 0xfe, 0x00])), keep).fields).toEqual([
      { name: 'body', value: '<3 bytes of binary data>' },
    ]);
  });

  it('masks each query value of the URL by its parameter name; a value cannot pass for another parameter', () => {
    const summary = summarizeWrite(
      write(null, '', { url: 'https://app.example/api/send?to=ann&token=abc123&q=a%26admin%3Dtrue#frag' }),
      mask,
    );
    expect(summary.url).toBe('https://app.example/api/send?to=ann&token=••••&q=a%26admin%3Dtrue');
  });

  it(`keeps at most ${MAX_FIELDS} fields and says how many more there were`, () => {
    const body = Array.from({ length: 75 }, (_, i) => `f${i}=${i}`).join('&');
    const { fields } = summarizeWrite(write('application/x-www-form-urlencoded', body), keep);
    expect(fields).toHaveLength(MAX_FIELDS + 1);
    expect(fields[MAX_FIELDS - 1]).toEqual({ name: 'f49', value: '49' });
    expect(fields[MAX_FIELDS]).toEqual({ name: '…', value: '25 more' });
  });

  it('cuts names at 100 characters and values at 200, after masking (a secret past the cut is still found)', () => {
    const longName = 'n'.repeat(150);
    const secretAtTheEnd = `${'v'.repeat(195)}s3cret`;
    const { fields } = summarizeWrite(
      write('application/json', JSON.stringify({ [longName]: secretAtTheEnd, emoji: `${'e'.repeat(199)}😀` })),
      mask,
    );
    expect(fields[0]).toEqual({ name: `${'n'.repeat(100)}…`, value: `${'v'.repeat(195)}{{sec…` });
    // A character outside the BMP is never split in half.
    expect(fields[1]!.value).toBe(`${'e'.repeat(199)}…`);
  });
});
