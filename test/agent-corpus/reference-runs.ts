import type { BrowserContext, Page } from 'playwright-core';

/**
 * Each corpus task done by hand with Playwright, the way a test author drives a page (roles and labels, piercing
 * shadow roots and frames, hovering, switching to the new tab). Run by reference.browser.test.ts through the same
 * checks as the agent's runs: it proves every task can be done on its page and that its check accepts a correct
 * run — so when the agent fails a task, the agent is what failed. Returns the answer a read task asks for.
 */
type Reference = (p: { page: Page; context: BrowserContext }) => Promise<Record<string, string> | void>;

const text = async (page: Page, selector: string) => ((await page.locator(selector).first().textContent()) ?? '').trim();
const card = (page: Page, sku: string) => page.locator(`product-card[sku="${sku}"]`);

async function newTab(context: BrowserContext, open: () => Promise<unknown>): Promise<Page> {
  const [tab] = await Promise.all([context.waitForEvent('page'), open()]);
  await tab.waitForLoadState('load');
  return tab;
}

export const REFERENCE_RUNS: Record<string, Reference> = {
  'store-add-to-cart': async ({ page }) => {
    await card(page, 'aur14').getByRole('button', { name: 'Add to cart' }).click();
  },
  'store-read-price': async ({ page }) => ({ price: ((await card(page, 'nim13').locator('.now').textContent()) ?? '').trim() }),
  'store-cart-subtotal': async ({ page }) => {
    await card(page, 'pulse').getByRole('button', { name: 'Add to cart' }).click();
    await card(page, 'arc').getByRole('button', { name: 'Add to cart' }).click();
    await page.getByRole('button', { name: /^Cart/ }).click();
    return { subtotal: ((await page.locator('mini-cart .subtotal').textContent()) ?? '').trim() };
  },
  'store-wishlist': async ({ page }) => {
    await card(page, 'vela16').getByRole('button', { name: 'Save to wishlist' }).click();
  },
  'store-rating': async ({ page }) => ({ rating: ((await card(page, 'aur14').locator('.score').textContent()) ?? '').trim() }),

  'checkout-pay-by-card': async ({ page }) => {
    const card = page.frameLocator('#card-frame');
    await card.getByLabel('Card number').fill('4242 4242 4242 4242');
    await card.getByLabel('Expiration date').fill('12/29');
    await card.getByLabel('Security code').fill('123');
    await card.getByLabel('ZIP').fill('94107');
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.getByText('your order is confirmed').waitFor();
  },
  'checkout-gift-card': async ({ page }) => {
    const gift = page.frameLocator('#gift-frame');
    await gift.getByLabel('Gift card number').fill('GIFT-2025-0001');
    await gift.getByRole('button', { name: 'Apply' }).click();
    await page.locator('#sum-gift-row').waitFor();
    return { total: await text(page, '#sum-total') };
  },
  'checkout-tax': async ({ page }) => ({ tax: await text(page, '#sum-tax') }),

  'megamenu-laptops': async ({ page }) => {
    await page.getByRole('link', { name: 'Products', exact: true }).hover();
    await page.getByRole('link', { name: 'Laptops' }).click();
    await page.waitForURL('**/megamenu/c/laptops');
  },
  'megamenu-healthcare': async ({ page }) => {
    await page.getByRole('link', { name: 'Solutions', exact: true }).hover();
    await page.getByRole('link', { name: 'Healthcare' }).click();
    await page.waitForURL('**/megamenu/s/healthcare');
  },
  'megamenu-warranty': async ({ page }) => {
    await page.getByRole('link', { name: 'Support', exact: true }).hover();
    await page.getByRole('link', { name: 'Warranty lookup' }).click();
    await page.getByLabel('Serial number').fill('NW-55821');
    await page.getByRole('button', { name: 'Check warranty' }).click();
    const shown = await page.getByText(/Covered until/).textContent();
    return { until: /Covered until (.+)$/.exec(shown ?? '')![1]!.trim() };
  },

  'invoices-status-on-page-3': async ({ page }) => {
    for (const n of ['11', '21']) {
      await page.getByRole('button', { name: 'Next page' }).click();
      await page.getByText(`INV-10${n}`).waitFor();
    }
    return { status: await text(page, 'tr[data-number="INV-1024"] .pill') };
  },
  'invoices-mark-paid': async ({ page }) => {
    await page.locator('tr[data-number="INV-1007"]').click();
    await page.getByRole('button', { name: 'Mark as paid' }).click();
    await page.getByText('INV-1007 marked as paid').waitFor();
  },
  'invoices-largest': async ({ page }) => {
    await page.locator('th', { hasText: 'Amount' }).click();
    await page.locator('th.sorted', { hasText: '▲' }).waitFor();
    await page.locator('th', { hasText: 'Amount' }).click();
    await page.locator('th.sorted', { hasText: '▼' }).waitFor();
    return { invoice: (await page.locator('tbody tr').first().getAttribute('data-number'))! };
  },
  'invoices-overdue-count': async ({ page }) => {
    await page.locator('.chip', { hasText: 'Overdue' }).click();
    await page.locator('.chip.is-active', { hasText: 'Overdue' }).waitFor();
    return { count: /of (\d+)/.exec(await text(page, '.range'))![1]! };
  },

  'signup-pro-plan': async ({ page }) => {
    await page.getByLabel('Full name').fill('Ada Lovelace');
    await page.getByLabel('Email address').fill('ada@example.com');
    await page.getByLabel('Password').fill('correct-horse-42');
    await page.getByText('Pro', { exact: true }).click();
    await page.getByLabel('Send me product updates').check();
    await page.getByLabel('I agree to the Terms of Service').check();
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Welcome to Fieldnote').waitFor();
  },
  'signup-invalid-email': async ({ page }) => {
    await page.getByLabel('Full name').fill('Ada');
    await page.getByLabel('Email address').fill('ada@');
    await page.getByRole('button', { name: 'Create account' }).click();
    return { message: ((await page.getByText('Please enter a valid email address.').textContent()) ?? '').trim() };
  },

  'settings-dark-theme': async ({ page }) => {
    await page.getByText('Dark theme').click();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Settings saved').waitFor();
  },
  'settings-weekly-digest': async ({ page }) => {
    await page.getByText('Weekly', { exact: true }).click();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Settings saved').waitFor();
  },
  'settings-read-language': async ({ page }) => ({ language: await text(page, '[data-name=language] .mdc-select__selected-text') }),
  'settings-time-zone': async ({ page }) => {
    await page.getByRole('combobox', { name: 'Time zone' }).click();
    await page.getByRole('option', { name: 'Central European Time (Berlin)' }).click();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Settings saved').waitFor();
  },

  'news-reject-cookies': async ({ page }) => {
    await page.getByRole('button', { name: 'Reject all' }).click();
  },
  'news-subscribe': async ({ page }) => {
    await page.getByRole('button', { name: 'Reject all' }).click();
    await page.getByLabel('Email address').fill('ada@example.com');
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await page.getByText('You’re subscribed').waitFor();
  },
  'news-custom-consent': async ({ page }) => {
    await page.getByRole('button', { name: 'Manage options' }).click();
    await page.locator('#mrd-cmp-root label[for="cmp-measurement"]').click();
    await page.getByRole('button', { name: 'Save & exit' }).click();
  },

  'reports-q3-total': async ({ page, context }) => {
    const tab = await newTab(context, () => page.getByRole('link', { name: 'Q3 2025 revenue report' }).click());
    return { total: await text(tab, '#total') };
  },
  'reports-approve-q1': async ({ page, context }) => {
    const tab = await newTab(context, () => page.getByRole('link', { name: 'Q1 2025 revenue report' }).click());
    await tab.getByRole('button', { name: 'Approve report' }).click();
    await tab.getByText('Approved', { exact: true }).waitFor();
    await tab.close();
  },
  'reports-export-q2-csv': async ({ page, context }) => {
    const row = page.locator('.report', { hasText: 'Q2 2025 revenue report' });
    const popup = await newTab(context, () => row.getByRole('button', { name: 'Export' }).click());
    await popup.getByLabel('CSV').check();
    await popup.getByRole('button', { name: 'Download' }).click();
    await popup.getByText('Your download is ready').waitFor();
  },

  'booking-departure-date': async ({ page }) => {
    await page.getByLabel('Departure date').fill('2025-07-18');
    await page.getByRole('button', { name: 'Search flights' }).click();
  },
  'booking-return-by-calendar': async ({ page }) => {
    await page.getByRole('button', { name: 'Choose return date' }).click();
    await page.locator('[aria-label="Friday, July 25, 2025"]').click();
    await page.getByRole('button', { name: 'Add adult' }).click();
    await page.getByRole('button', { name: 'Search flights' }).click();
  },
  'booking-return-typed': async ({ page }) => {
    await page.getByLabel('Return date').fill('08/01/2025');
    await page.getByRole('button', { name: 'Search flights' }).click();
  },
  'booking-departure-time': async ({ page }) => {
    await page.getByLabel('Departure time').fill('09:30');
    await page.getByRole('button', { name: 'Search flights' }).click();
  },

  'article-battery-hours': async ({ page }) => {
    const body = (await page.locator('article').innerText()).replace(/\s+/g, ' ');
    return { hours: /video playback test[^.]*?lasted ([\d.]+ hours)/.exec(body)![1]! };
  },
  'article-commenter-distro': async ({ page }) => {
    await page.locator('#c9').waitFor();
    return { distro: /I run (\S+(?: \d+)?) on mine/.exec(await text(page, '#c9 p'))![1]! };
  },
  'article-like-comment': async ({ page }) => {
    await page.getByRole('button', { name: 'Load more comments' }).click();
    await page.locator('#c17 .like').click();
  },
  'article-copy-link': async ({ page }) => {
    await page.getByRole('button', { name: 'Copy link' }).click();
  },
  'article-reply': async ({ page }) => {
    await page.locator('#c9').getByRole('button', { name: 'Reply' }).click();
    await page.getByRole('textbox', { name: 'Write a reply' }).fill('Thanks, that helps!');
    await page.getByRole('button', { name: 'Post reply' }).click();
  },
};
