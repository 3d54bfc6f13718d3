import { PlaybookNotApplicable } from '../../server/agent/playbooks/errors';
import { emptyResult, shapeToFormat, type ShapeWarning } from '../../server/agent/playbooks/shape';

/**
 * Result fields mapped by meaning (no browser): what common names in a caller's responseFormat mean whatever a
 * playbook calls its fields, never a value of the wrong type (a time for a boolean), and the lenient shaping of a
 * write that happened (null and a warning instead of a failure).
 */
const sentMessage = {
  recipient: 'Priya Nair',
  recipientUsername: 'priya-nair',
  text: 'Running late',
  sentAt: '2026-01-01T12:00:00.000Z',
  conversationUrl: 'http://orbit.sandbox.localhost/messaging/priya-nair',
  sent: true,
};
const publishedPost = {
  postId: '42',
  url: 'http://orbit.sandbox.localhost/posts/42',
  text: 'Hello',
  postedAt: '2026-01-01T12:00:00.000Z',
  posted: true,
};
const openedIssue = {
  number: 29,
  title: 'Crash',
  url: 'http://forgehub/openfoundry/atlas/issues/29',
  createdAt: '2026-01-01T12:00:00Z',
  opened: true,
};

describe('result fields by meaning', () => {
  it.each([
    // "was it done?" as a boolean, under every common name
    ['sent', 'boolean', sentMessage, true],
    ['ok', 'boolean', sentMessage, true],
    ['done', 'boolean', sentMessage, true],
    ['success', 'boolean', sentMessage, true],
    ['isSent', 'boolean', sentMessage, true],
    ['wasDelivered', 'boolean', sentMessage, true],
    ['sentSuccessfully', 'boolean', sentMessage, true],
    ['posted', 'boolean', publishedPost, true],
    ['created', 'boolean', publishedPost, true],
    ['published', 'boolean', publishedPost, true],
    ['created', 'boolean', openedIssue, true],
    ['succeeded', 'boolean', openedIssue, true],
    // "when?"
    ['sentAt', 'datetime', sentMessage, sentMessage.sentAt],
    ['at', 'datetime', sentMessage, sentMessage.sentAt],
    ['time', 'datetime', sentMessage, sentMessage.sentAt],
    ['timestamp', 'string', sentMessage, sentMessage.sentAt],
    ['sent_at', 'datetime', sentMessage, sentMessage.sentAt],
    ['createdAt', 'datetime', publishedPost, publishedPost.postedAt],
    ['publishedAt', 'datetime', publishedPost, publishedPost.postedAt],
    ['openedAt', 'datetime', openedIssue, openedIssue.createdAt],
    // "which one?" and "where?"
    ['id', 'string', publishedPost, '42'],
    ['id', 'integer', openedIssue, 29],
    ['url', 'url', sentMessage, sentMessage.conversationUrl],
    ['link', 'url', publishedPost, publishedPost.url],
  ])('%s: "%s" is filled from what it means', (key, leaf, fields, expected) => {
    expect(shapeToFormat(fields, { [key]: leaf })).toEqual({ [key]: expected });
  });

  it('never answers a boolean with a time (the message that was sent but reported FAILED)', () => {
    // `sent` once was an alias of sentAt: a string for a boolean leaf, so the request failed after sending.
    expect(shapeToFormat(sentMessage, { sent: 'boolean', sentAt: 'datetime' }, { sentAt: ['sent', 'time'] })).toEqual({
      sent: true,
      sentAt: sentMessage.sentAt,
    });
    expect(() => shapeToFormat({ sentAt: sentMessage.sentAt }, { sent: 'boolean' }, { sentAt: ['sent'] })).toThrow(PlaybookNotApplicable);
  });

  it('does not take a word that merely ends like a time for a time, nor another moment for the making time', () => {
    expect(() => shapeToFormat(sentMessage, { format: 'string' })).toThrow(/responseFormat\.format is not something this playbook reads/);
    expect(() => shapeToFormat(sentMessage, { readAt: 'datetime' })).toThrow(/responseFormat\.readAt/);
    expect(() => shapeToFormat(publishedPost, { deletedAt: 'datetime?' })).toThrow(/responseFormat\.deletedAt/);
  });

  it('after a write, leaves what it cannot fill null and names it, instead of giving up', () => {
    const warnings: ShapeWarning[] = [];
    const shaped = shapeToFormat(
      sentMessage,
      { sent: 'boolean', receipt: { readBy: 'integer', at: 'datetime?' }, tags: ['string'] },
      {},
      '',
      { lenient: { warnings } },
    );
    expect(shaped).toEqual({ sent: true, receipt: { readBy: null, at: sentMessage.sentAt }, tags: [] });
    expect(warnings).toEqual([
      {
        code: 'RESULT_FIELD_UNFILLED',
        path: 'result.receipt.readBy',
        message: expect.stringMatching(/responseFormat\.receipt\.readBy is not something .*; left null$/),
      },
      {
        code: 'RESULT_FIELD_UNFILLED',
        path: 'result.tags',
        message: expect.stringMatching(/is a list, which this playbook does not read; left empty$/),
      },
    ]);
  });

  it('a write whose result could not be read back: every field null, every one named', () => {
    const warnings: ShapeWarning[] = [];
    expect(emptyResult({ sent: 'boolean', message: { text: 'string' }, tags: ['string'] }, '', warnings, 'read-back failed')).toEqual({
      sent: null,
      message: { text: null },
      tags: [],
    });
    expect(warnings.map((w) => w.path)).toEqual(['result.sent', 'result.message.text', 'result.tags']);
  });
});
