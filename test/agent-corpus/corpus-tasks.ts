import type { CorpusTask, TaskRun } from './corpus-harness';

/**
 * The corpus's 36 tasks: what a user asks on each realistic page (test/fixtures/realistic/), the steps a person
 * would take (read by the label-picking model), and what the site must have recorded afterwards. A task passes only
 * when the run completed AND the page state (and the answer) is right: a run that "completes" after clicking the
 * wrong thing fails here.
 */
function result(run: TaskRun): Record<string, unknown> {
  if (run.outcome.status !== 'completed') throw new Error(`the run did not complete`);
  return run.outcome.result as Record<string, unknown>;
}

/** The events of a type, without the fields every event has. */
function recorded(run: TaskRun, type: string): Record<string, unknown>[] {
  return run.events(type).map(({ type: _t, page: _p, origin: _o, ...rest }) => rest);
}

const viewed = (run: TaskRun, path: string) => run.events('view').some((e) => e.origin === 'shop' && e.page === path);

const MONEY = '/\\$[\\d,]+\\.\\d\\d/';

export const CORPUS_TASKS: CorpusTask[] = [
  // ---------- web-component storefront (shadow roots) ----------
  {
    id: 'store-add-to-cart',
    page: '/store/',
    action: 'Add the Aurora 14 to my cart.',
    exercises: ['shadow-dom'],
    steps: ["click 'Add to cart' in 'Aurora 14'", 'done'],
    check(run) {
      result(run);
      expect(recorded(run, 'cart_add')).toEqual([{ sku: 'aur14' }]);
    },
  },
  {
    id: 'store-read-price',
    page: '/store/',
    action: 'How much does the Nimbus 13 cost?',
    exercises: ['shadow-dom'],
    steps: [`read price as ${MONEY} near 'Nimbus 13'`, 'done'],
    check(run) {
      expect(result(run)).toEqual({ price: '$1,099.00' });
    },
  },
  {
    id: 'store-cart-subtotal',
    page: '/store/',
    action: 'Add the Pulse Earbuds and the Arc Mouse to my cart, then open the cart and tell me the subtotal.',
    exercises: ['shadow-dom', 'svg-title'],
    steps: [
      "click 'Add to cart' in 'Pulse Earbuds'",
      "click 'Add to cart' in 'Arc Mouse'",
      "click 'Cart'",
      `read subtotal as ${MONEY} near 'Subtotal'`,
      'done',
    ],
    check(run) {
      expect(result(run)).toEqual({ subtotal: '$178.99' });
      expect(recorded(run, 'cart_add')).toEqual([{ sku: 'pulse' }, { sku: 'arc' }]);
      expect(recorded(run, 'cart_open')).toEqual([{ items: ['pulse', 'arc'] }]);
    },
  },
  {
    id: 'store-wishlist',
    page: '/store/',
    action: 'Save the Vela 16 Pro to my wishlist.',
    exercises: ['shadow-dom', 'svg-title'],
    steps: ["click 'Save to wishlist' in 'Vela 16 Pro'", 'done'],
    check(run) {
      result(run);
      expect(recorded(run, 'wishlist_add')).toEqual([{ sku: 'vela16' }]);
    },
  },
  {
    id: 'store-rating',
    page: '/store/',
    action: 'What average rating do customers give the Aurora 14?',
    exercises: ['shadow-dom'],
    steps: ["read rating as /(\\d\\.\\d)\\s*\\(\\d+ reviews\\)/ near 'Aurora 14'", 'done'],
    check(run) {
      expect(result(run)).toEqual({ rating: '4.5' });
    },
  },

  // ---------- checkout: same-origin and cross-origin frames ----------
  {
    id: 'checkout-pay-by-card',
    page: '/checkout/',
    action: 'Pay for my order with the card 4242 4242 4242 4242, expiring 12/29, security code 123, billing ZIP 94107.',
    exercises: ['iframe-cross-origin'],
    steps: [
      "type '4242 4242 4242 4242' into 'Card number'",
      "type '12/29' into 'Expiration date'",
      "type '123' into 'Security code'",
      "type '94107' into 'ZIP'",
      "click 'Pay'",
      'done',
    ],
    check(run) {
      result(run);
      const card = run.events('card_tokenized');
      expect(card).toEqual([expect.objectContaining({ origin: 'pay', last4: '4242', exp: '12/29', zip: '94107' })]);
      expect(recorded(run, 'order_placed')).toEqual([expect.objectContaining({ order: 'LS-20931', token: card[0]!.token })]);
    },
  },
  {
    id: 'checkout-gift-card',
    page: '/checkout/',
    action: 'Apply my gift card GIFT-2025-0001 and tell me the new order total.',
    exercises: ['iframe-same-origin'],
    steps: ["type 'GIFT-2025-0001' into 'Gift card number'", "click 'Apply'", `read total as ${MONEY} near 'Total'`, 'done'],
    check(run) {
      expect(result(run)).toEqual({ total: '$1,352.92' });
      expect(recorded(run, 'gift_applied')).toEqual([{ code: 'GIFT-2025-0001', amount: 5000, total: 135292 }]);
    },
  },
  {
    id: 'checkout-tax',
    page: '/checkout/',
    action: 'How much tax will I pay on this order?',
    exercises: ['baseline'],
    steps: [`read tax as ${MONEY} near 'Estimated tax'`, 'done'],
    check(run) {
      expect(result(run)).toEqual({ tax: '$103.92' });
    },
  },

  // ---------- mega menu (hover) ----------
  {
    id: 'megamenu-laptops',
    page: '/megamenu/',
    action: 'Open the Laptops category.',
    exercises: ['hover'],
    steps: ["hover 'Products'", "click 'Laptops'", 'done'],
    check(run) {
      result(run);
      expect(viewed(run, '/megamenu/c/laptops')).toBe(true);
    },
  },
  {
    id: 'megamenu-healthcare',
    page: '/megamenu/',
    action: "Show me Northwind's solutions for healthcare.",
    exercises: ['hover'],
    steps: ["hover 'Solutions'", "click 'Healthcare'", 'done'],
    check(run) {
      result(run);
      expect(viewed(run, '/megamenu/s/healthcare')).toBe(true);
    },
  },
  {
    id: 'megamenu-warranty',
    page: '/megamenu/',
    action: 'Check the warranty of my device with serial number NW-55821 and tell me until when it is covered.',
    exercises: ['hover'],
    steps: [
      "hover 'Support'",
      "click 'Warranty lookup'",
      "type 'NW-55821' into 'Serial number'",
      "click 'Check warranty'",
      'read until as /Covered until ([A-Z][a-z]+ \\d{1,2}, \\d{4})/',
      'done',
    ],
    check(run) {
      expect(result(run)).toEqual({ until: 'March 3, 2027' });
      expect(recorded(run, 'warranty_lookup')).toEqual([{ serial: 'NW-55821', found: true }]);
    },
  },

  // ---------- data table with pagination (listeners, icon buttons) ----------
  {
    id: 'invoices-status-on-page-3',
    page: '/invoices/',
    action: 'What is the status of invoice INV-1024?',
    exercises: ['svg-title'],
    steps: ["click 'Next page' until 'INV-1024' is shown", "read status as /\\b(Paid|Open|Overdue)\\b/ near 'INV-1024'", 'done'],
    check(run) {
      expect(result(run)).toEqual({ status: 'Overdue' });
    },
  },
  {
    id: 'invoices-mark-paid',
    page: '/invoices/',
    action: 'Mark invoice INV-1007 as paid.',
    exercises: ['listener'],
    steps: ["click 'INV-1007'", "click 'Mark as paid'", 'done'],
    check(run) {
      result(run);
      expect(recorded(run, 'invoice_paid')).toEqual([{ number: 'INV-1007' }]);
    },
  },
  {
    id: 'invoices-largest',
    page: '/invoices/',
    action: 'Which invoice has the largest amount?',
    exercises: ['listener'],
    steps: ["click 'Amount'", "click 'Amount'", "read invoice as /INV-\\d{4}/ near 'Status'", 'done'],
    check(run) {
      expect(result(run)).toEqual({ invoice: 'INV-1019' });
    },
  },
  {
    id: 'invoices-overdue-count',
    page: '/invoices/',
    action: 'How many invoices are overdue?',
    exercises: ['listener'],
    steps: ["click 'Overdue'", 'read count as /Showing \\d+–\\d+ of (\\d+)/', 'done'],
    check(run) {
      expect(result(run)).toEqual({ count: '6' });
    },
  },

  // ---------- Bootstrap-style form kit ----------
  {
    id: 'signup-pro-plan',
    page: '/signup/',
    action:
      'Sign me up for Fieldnote as Ada Lovelace, ada@example.com, password correct-horse-42, on the Pro plan, with product updates, accepting the terms.',
    exercises: ['hidden-input'],
    steps: [
      "type 'Ada Lovelace' into 'Full name'",
      "type 'ada@example.com' into 'Email address'",
      "type 'correct-horse-42' into 'Password'",
      "click 'Pro'",
      "click 'Send me product updates'",
      "click 'I agree to the Terms of Service'",
      "click 'Create account'",
      'done',
    ],
    check(run) {
      result(run);
      expect(recorded(run, 'signup')).toEqual([
        { name: 'Ada Lovelace', email: 'ada@example.com', plan: 'pro', updates: true, terms: true },
      ]);
    },
  },
  {
    id: 'signup-invalid-email',
    page: '/signup/',
    action: "Try to create an account for Ada with the email address 'ada@' and tell me what the form says about the email.",
    exercises: ['state', 'baseline'],
    steps: [
      "type 'Ada' into 'Full name'",
      "type 'ada@' into 'Email address'",
      "click 'Create account'",
      "read message as /Please enter a valid email address\\./ near 'Email address'",
      'done',
    ],
    check(run) {
      expect(result(run)).toEqual({ message: 'Please enter a valid email address.' });
      expect(recorded(run, 'signup')).toEqual([]);
      expect(recorded(run, 'signup_invalid')).toEqual([{ fields: expect.arrayContaining(['email']) }]);
    },
  },

  // ---------- Material-style form kit ----------
  {
    id: 'settings-dark-theme',
    page: '/settings/',
    action: 'Turn on the dark theme and save my settings.',
    exercises: ['hidden-input'],
    steps: ["click 'Dark theme'", "click 'Save changes'", 'done'],
    check(run) {
      result(run);
      expect(recorded(run, 'settings_saved')).toEqual([expect.objectContaining({ darkTheme: true, digest: 'daily' })]);
    },
  },
  {
    id: 'settings-weekly-digest',
    page: '/settings/',
    action: 'Change my email digest to weekly and save.',
    exercises: ['hidden-input'],
    steps: ["click 'Weekly'", "click 'Save changes'", 'done'],
    check(run) {
      result(run);
      expect(recorded(run, 'settings_saved')).toEqual([expect.objectContaining({ digest: 'weekly', darkTheme: false })]);
    },
  },
  {
    id: 'settings-read-language',
    page: '/settings/',
    action: 'Which language is my account set to?',
    exercises: ['state'],
    steps: ["read language from the value of 'Language'", 'done'],
    check(run) {
      expect(result(run)).toEqual({ language: 'English (UK)' });
    },
  },
  {
    id: 'settings-time-zone',
    page: '/settings/',
    action: 'Set my time zone to Central European Time and save.',
    exercises: ['baseline'],
    steps: ["select 'Central European Time' in 'Time zone'", "click 'Save changes'", 'done'],
    check(run) {
      result(run);
      expect(recorded(run, 'settings_saved')).toEqual([expect.objectContaining({ timezone: 'Europe/Berlin', language: 'en-GB' })]);
    },
  },

  // ---------- consent overlay ----------
  {
    id: 'news-reject-cookies',
    page: '/news/',
    action: 'Reject all cookies on The Meridian.',
    exercises: ['shadow-dom', 'overlay'],
    steps: ["click 'Reject all'", 'done'],
    check(run) {
      result(run);
      expect(recorded(run, 'consent')).toEqual([{ choice: 'reject_all', ads: false, measurement: false, content: false }]);
    },
  },
  {
    id: 'news-subscribe',
    page: '/news/',
    action: 'Subscribe ada@example.com to the Morning Briefing newsletter.',
    exercises: ['shadow-dom', 'overlay'],
    steps: ["click 'Reject all'", "type 'ada@example.com' into 'Email address'", "click 'Subscribe'", 'done'],
    check(run) {
      result(run);
      expect(recorded(run, 'newsletter_subscribe')).toEqual([{ email: 'ada@example.com' }]);
    },
  },
  {
    id: 'news-custom-consent',
    page: '/news/',
    action: 'Allow only audience measurement cookies.',
    exercises: ['shadow-dom', 'overlay', 'hidden-input'],
    steps: ["click 'Manage options'", "click 'Audience measurement'", "click 'Save & exit'", 'done'],
    check(run) {
      result(run);
      expect(recorded(run, 'consent')).toEqual([{ choice: 'custom', ads: false, measurement: true, content: false }]);
    },
  },

  // ---------- reports in new tabs ----------
  {
    id: 'reports-q3-total',
    page: '/reports/',
    action: 'Open the Q3 2025 revenue report and tell me the total revenue.',
    exercises: ['tabs'],
    steps: [
      "click 'Q3 2025 revenue report'",
      "switch to tab 'Q3 2025 revenue report'",
      "read total as /\\$[\\d,]+/ near 'Total revenue'",
      'done',
    ],
    check(run) {
      expect(result(run)).toEqual({ total: '$4,812,300' });
    },
  },
  {
    id: 'reports-approve-q1',
    page: '/reports/',
    action: 'Approve the Q1 2025 revenue report, then close its tab.',
    exercises: ['tabs'],
    steps: ["click 'Q1 2025 revenue report'", "switch to tab 'Q1 2025 revenue report'", "click 'Approve report'", 'close tab', 'done'],
    check(run) {
      result(run);
      expect(recorded(run, 'report_approved')).toEqual([{ report: 'q1' }]);
      expect(run.openPages.filter((u) => u.includes('/reports/view/'))).toEqual([]);
      expect(run.openPages.some((u) => u.endsWith('/reports/'))).toBe(true);
    },
  },
  {
    id: 'reports-export-q2-csv',
    page: '/reports/',
    action: 'Export the Q2 2025 revenue report as CSV.',
    exercises: ['tabs'],
    steps: ["click 'Export' in 'Q2 2025 revenue report'", "switch to tab 'Export'", "click 'CSV'", "click 'Download'", 'done'],
    check(run) {
      result(run);
      expect(recorded(run, 'report_exported')).toEqual([{ report: 'q2', format: 'csv' }]);
    },
  },

  // ---------- date pickers ----------
  {
    id: 'booking-departure-date',
    page: '/booking/',
    action: 'Search flights departing on 07/18/2025.',
    exercises: ['date'],
    steps: ["type '07/18/2025' into 'Departure date'", "click 'Search flights'", 'done'],
    check(run) {
      result(run);
      expect(recorded(run, 'flight_search')).toEqual([expect.objectContaining({ depart: '2025-07-18' })]);
    },
  },
  {
    id: 'booking-return-by-calendar',
    page: '/booking/',
    action: 'Pick July 25, 2025 as the return date in the calendar, for two adults, and search.',
    exercises: ['svg-title', 'listener'],
    steps: ["click 'Choose return date'", "click 'July 25, 2025'", "click 'Add adult'", "click 'Search flights'", 'done'],
    check(run) {
      result(run);
      expect(recorded(run, 'flight_search')).toEqual([expect.objectContaining({ returnDate: '2025-07-25', adults: 2 })]);
    },
  },
  {
    id: 'booking-return-typed',
    page: '/booking/',
    action: 'Search flights returning on 08/01/2025.',
    exercises: ['baseline'],
    steps: ["type '08/01/2025' into 'Return date'", "click 'Search flights'", 'done'],
    check(run) {
      result(run);
      expect(recorded(run, 'flight_search')).toEqual([expect.objectContaining({ returnDate: '2025-08-01' })]);
    },
  },
  {
    id: 'booking-departure-time',
    page: '/booking/',
    action: 'I want to leave at 9:30 AM: set the departure time and search.',
    exercises: ['date'],
    steps: ["type '9:30 AM' into 'Departure time'", "click 'Search flights'", 'done'],
    check(run) {
      result(run);
      expect(recorded(run, 'flight_search')).toEqual([expect.objectContaining({ departTime: '09:30' })]);
    },
  },

  // ---------- long article with comments ----------
  {
    id: 'article-battery-hours',
    page: '/article/',
    action: "How long did the Aurora 14 last in the review's video playback test?",
    exercises: ['long-text'],
    steps: ['read hours as /video playback test[^.]*?lasted ([\\d.]+ hours)/', 'done'],
    check(run) {
      expect(result(run)).toEqual({ hours: '14.5 hours' });
    },
  },
  {
    id: 'article-commenter-distro',
    page: '/article/',
    action: 'Which Linux distribution does the commenter Priya Raman run?',
    exercises: ['long-text'],
    steps: ["read distro as /I run (\\S+(?: \\d+)?) on mine/ near 'Priya Raman'", 'done'],
    check(run) {
      expect(result(run)).toEqual({ distro: 'Fedora 40' });
    },
  },
  {
    id: 'article-like-comment',
    page: '/article/',
    action: "Like Tomás Ortega's comment.",
    exercises: ['listener'],
    steps: ["click 'Load more comments'", "click 'Like' in 'Tomás Ortega'", 'done'],
    check(run) {
      result(run);
      expect(recorded(run, 'comment_liked')).toEqual([{ comment: 'c17', author: 'Tomás Ortega' }]);
    },
  },
  {
    id: 'article-copy-link',
    page: '/article/',
    action: 'Copy the link to this article.',
    exercises: ['svg-title'],
    steps: ["click 'Copy link'", 'done'],
    check(run) {
      result(run);
      expect(recorded(run, 'link_copied')).toEqual([{ url: '/article/' }]);
    },
  },
  {
    id: 'article-reply',
    page: '/article/',
    action: "Reply 'Thanks, that helps!' to Priya Raman's comment.",
    exercises: ['svg-title', 'long-text'],
    steps: ["click 'Reply' in 'Priya Raman'", "type 'Thanks, that helps!' into 'Write a reply'", "click 'Post reply'", 'done'],
    check(run) {
      result(run);
      expect(recorded(run, 'reply_posted')).toEqual([{ to: 'c9', author: 'Priya Raman', text: 'Thanks, that helps!' }]);
    },
  },
];
