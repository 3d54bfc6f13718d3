import { MONEY, recorded, result, viewed } from './corpus-checks';
import type { CorpusTask } from './corpus-harness';

/**
 * The corpus's commerce tasks: buying in a web-component storefront (shadow roots), paying in a checkout with
 * same-origin and cross-origin payment frames, finding a category in a mega menu opened by hovering, and reading and
 * settling invoices in a paginated table (listeners, icon buttons).
 */
export const COMMERCE_TASKS: CorpusTask[] = [
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
];
