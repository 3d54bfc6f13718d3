import { recorded, result } from './corpus-checks';
import type { CorpusTask } from './corpus-harness';

/**
 * The corpus's form tasks, and the pages around them: Bootstrap- and Material-style form kits (hidden inputs, state),
 * a news site's consent overlay, reports opened in new tabs, a booking form's date pickers, and a long article that is
 * read, liked and replied to.
 */
export const FORM_TASKS: CorpusTask[] = [
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
