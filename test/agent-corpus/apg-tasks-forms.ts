import type { ApgTask } from './apg-harness';
import { attr, style, texts, value, values } from './apg-state';

/** Tasks on the guide's tabs, accordions, disclosures, form controls, listboxes, tables, grids and toolbars. */
const TABS_AUTO = 'tabs/examples/tabs-automatic.html';
const TABS_MANUAL = 'tabs/examples/tabs-manual.html';
const ACCORDION = 'accordion/examples/accordion.html';
const CHECKBOX = 'checkbox/examples/checkbox.html';
const RADIO = 'radio/examples/radio.html';
const SORT_TABLE = 'table/examples/sortable-table.html';
const LISTBOX = 'listbox/examples/listbox-scrollable.html';
const LISTBOX_MOVE = 'listbox/examples/listbox-rearrangeable.html';
const FAQ = 'disclosure/examples/disclosure-faq.html';
const SPIN = 'spinbutton/examples/quantity-spinbutton.html';
const SWITCH = 'switch/examples/switch.html';
const TREEGRID = 'treegrid/examples/treegrid-1.html';
const GRIDS = 'grid/examples/data-grids.html';
const TOOLBAR = 'toolbar/examples/toolbar.html';
const BUTTON = 'button/examples/button.html';
const CHECKBOX_MIXED = 'checkbox/examples/checkbox-mixed.html';

export const FORM_TASKS: ApgTask[] = [
  // ---------- tabs, accordion, disclosure ----------
  {
    id: 'tabs-automatic',
    page: TABS_AUTO,
    pattern: 'tabs',
    action: 'Show the tab about Peter Müller.',
    steps: ["click 'Peter Müller'", 'done'],
    state: texts('[role=tab][aria-selected=true]'),
    expected: ['Peter Müller'],
  },
  {
    id: 'tabs-manual-read',
    page: TABS_MANUAL,
    pattern: 'tabs',
    action: 'When was Ida da Fonseca born?',
    steps: ["click 'Ida da Fonseca'", "read born as /\\((\\w+ \\d+, \\d{4})/ near 'Ida Henriette da Fonseca'", 'done'],
    state: texts('[role=tab][aria-selected=true]'),
    expected: ['Ida da Fonseca'],
    answer: { born: 'July 27, 1802' },
    quick: true,
  },
  {
    id: 'accordion-billing',
    page: ACCORDION,
    pattern: 'accordion',
    action: 'Fill in my billing address: 1 Main St, Portland, OR 97201.',
    steps: [
      "click 'Billing Address'",
      "type '1 Main St' into 'Address 1' in 'Billing Address'",
      "type 'Portland' into 'City' in 'Billing Address'",
      "type 'OR' into 'State' in 'Billing Address'",
      "type '97201' into 'Zip Code' in 'Billing Address'",
      'done',
    ],
    state: `[${attr('#accordion2id', 'aria-expanded')}, ${value('#b-add1')}, ${value('#b-city')}, ${value('#b-state')}, ${value('#b-zip')}]`,
    expected: ['true', '1 Main St', 'Portland', 'OR', '97201'],
    quick: true,
  },
  {
    id: 'accordion-personal',
    page: ACCORDION,
    pattern: 'accordion',
    action: 'Put my name Ada Lovelace and e-mail ada@example.org in the personal information.',
    steps: ["type 'Ada Lovelace' into 'Name'", "type 'ada@example.org' into 'Email'", 'done'],
    state: `[${value('#cufc1')}, ${value('#cufc2')}]`,
    expected: ['Ada Lovelace', 'ada@example.org'],
  },
  {
    id: 'faq-holidays',
    page: FAQ,
    pattern: 'disclosure',
    action: 'Is there free parking on holidays? Tell me the hours when all facilities are restricted.',
    steps: [
      "click 'Is there free parking on holidays?'",
      "read hours as /restricted from (.+?) on all days/ near 'free parking on holidays'",
      'done',
    ],
    state: attr('[aria-controls=faq3_desc]', 'aria-expanded'),
    expected: 'true',
    answer: { hours: '2:00 am - 6:00 am' },
  },

  // ---------- checkboxes, radios, switch, spin buttons ----------
  {
    id: 'checkbox-condiments',
    page: CHECKBOX,
    pattern: 'checkbox',
    action: 'On my sandwich I want lettuce and mustard, but no tomato.',
    steps: ["click 'Lettuce'", "click 'Mustard'", "click 'Tomato'", 'done'],
    state: texts('[role=checkbox][aria-checked=true]'),
    expected: ['Lettuce', 'Mustard'],
    quick: true,
  },
  {
    id: 'checkbox-mixed-all',
    page: CHECKBOX_MIXED,
    pattern: 'checkbox (mixed)',
    action: 'I want all the condiments on my sandwich.',
    steps: ["click 'All condiments'", 'done'],
    state: `[...document.querySelectorAll('#ex1 input[type=checkbox]')].map((e) => e.checked)`,
    expected: [true, true, true, true],
  },
  {
    id: 'checkbox-mixed-one',
    page: CHECKBOX_MIXED,
    pattern: 'checkbox (mixed)',
    action: 'Only mustard on my sandwich, nothing else.',
    steps: ["click 'Tomato'", "click 'Mustard'", 'done'],
    state: `[...document.querySelectorAll('#ex1 input[type=checkbox]')].map((e) => e.checked)`,
    expected: [false, false, true, false],
  },
  {
    id: 'radio-pizza',
    page: RADIO,
    pattern: 'radio group',
    action: 'Order a thin crust pizza for home delivery.',
    steps: ["click 'Thin crust'", "click 'Home Delivery'", 'done'],
    state: texts('[role=radio][aria-checked=true]'),
    expected: ['Thin crust', 'Home Delivery'],
  },
  {
    id: 'button-mute',
    page: BUTTON,
    pattern: 'button (toggle)',
    action: 'Mute the sound.',
    steps: ["click 'Mute'", 'done'],
    state: attr('#toggle', 'aria-pressed'),
    expected: 'true',
  },
  {
    id: 'switch-notifications',
    page: SWITCH,
    pattern: 'switch',
    action: 'Turn notifications on.',
    steps: ["click 'Notifications'", 'done'],
    state: attr('[role=switch]', 'aria-checked'),
    expected: 'true',
  },
  {
    id: 'spin-guests',
    page: SPIN,
    pattern: 'spin button',
    action: 'Book for 3 adults and 2 kids.',
    steps: ["click 'Add adult'", "click 'Add adult'", "click 'Add kid'", "click 'Add kid'", 'done'],
    state: values('[role=spinbutton]'),
    expected: ['3', '2', '0'],
  },

  // ---------- listboxes ----------
  {
    id: 'listbox-scrollable',
    page: LISTBOX,
    pattern: 'listbox',
    action: 'My favorite transuranic element is Curium: select it.',
    steps: ["click 'Curium'", 'done'],
    state: texts('[role=option][aria-selected=true]'),
    expected: ['Curium'],
  },
  {
    id: 'listbox-not-important',
    page: LISTBOX_MOVE,
    pattern: 'listbox (rearrangeable)',
    action: 'Mark "Proximity of fast food" as not important.',
    steps: ["click 'Proximity of fast food'", "click 'Not Important'", 'done'],
    state: texts('#ss_unimp_list [role=option]'),
    expected: ['Proximity of fast food'],
  },
  {
    id: 'listbox-upgrades',
    page: LISTBOX_MOVE,
    pattern: 'listbox (rearrangeable)',
    action: 'Add leather seats and the food synthesizer to my capsule upgrades.',
    steps: ["click 'Leather seats'", "click 'Food synthesizer'", "click 'Add'", 'done'],
    state: texts('#ms_unimp_list [role=option]'),
    expected: ['Leather seats', 'Food synthesizer'],
  },

  // ---------- tables, grids, toolbar ----------
  {
    id: 'table-sort',
    page: SORT_TABLE,
    pattern: 'sortable table',
    action: 'Sort the students by last name.',
    steps: ["click 'Last Name'", 'done'],
    state: `[...document.querySelectorAll('th[aria-sort=ascending], th[aria-sort=descending]')].map((e) => e.textContent.replace(/[^A-Za-z ]/g, '').trim())`,
    expected: ['Last Name'],
  },
  {
    id: 'grid-sort-amount',
    page: GRIDS,
    pattern: 'data grid',
    action: 'In the sortable transactions grid, sort by amount.',
    steps: ["click 'Amount'", 'done'],
    state: texts('#ex2-grid th[aria-sort=ascending], #ex2-grid th[aria-sort=descending]'),
    expected: ['Amount'],
  },
  {
    id: 'treegrid-collapse',
    page: TREEGRID,
    pattern: 'treegrid',
    action: "Collapse the e-mail thread 'Treegrids are awesome'.",
    steps: ["click 'Treegrids are awesome'", 'done'],
    state: attr('#treegrid tr[aria-level="1"]', 'aria-expanded'),
    expected: 'false',
    quick: true,
  },
  {
    id: 'toolbar-format',
    page: TOOLBAR,
    pattern: 'toolbar',
    action: 'Make the text sample bold and centered.',
    steps: ["click 'Bold'", "click 'Text Align Center'", 'done'],
    state: `[${style('#textarea1', 'fontWeight')}, ${style('#textarea1', 'textAlign')}]`,
    expected: ['bold', 'center'],
  },
  {
    id: 'toolbar-font-menu',
    page: TOOLBAR,
    pattern: 'toolbar (menu button)',
    action: 'Switch the text sample to the Monospace font.',
    steps: ["click 'Font: Sans-serif'", "click 'Monospace'", 'done'],
    state: style('#textarea1', 'fontFamily'),
    expected: 'monospace',
    quick: true,
  },
];
