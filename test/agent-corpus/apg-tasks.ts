import type { ApgTask } from './apg-harness';

/**
 * The public corpus's tasks: what a user asks on each W3C ARIA Authoring Practices Guide example
 * (test/fixtures/apg/site/patterns/), the steps a person would take (read by the label-picking model), and the state
 * the example's own script leaves in the DOM when the task is done. The states are read with plain DOM queries,
 * never through the observation; the ones that depend on today's date are computed when checked.
 *
 * `quick` marks the subset that runs in `npm test` (one or two per pattern family); `npm run bench:corpus` runs all.
 */
const q = (selector: string) => `document.querySelector(${JSON.stringify(selector)})`;
const value = (selector: string) => `${q(selector)}.value`;
const attr = (selector: string, name: string) => `${q(selector)}.getAttribute(${JSON.stringify(name)})`;
/** The text of the elements matching `selector`, trimmed, in document order. */
const texts = (selector: string) =>
  `[...document.querySelectorAll(${JSON.stringify(selector)})].map((e) => e.textContent.replace(/\\s+/g, ' ').trim())`;
/** The values of the form fields matching `selector`, in document order. */
const values = (selector: string) => `[...document.querySelectorAll(${JSON.stringify(selector)})].map((e) => e.value)`;
const style = (selector: string, prop: string) => `${q(selector)}.style.${prop}`;

/** Today's month and year as the guide's date pickers write a date (m/d/yyyy), `months` months on. */
const dayOfMonth =
  (day: number, months = 0) =>
  () => {
    const d = new Date();
    const m = new Date(d.getFullYear(), d.getMonth() + months, 1);
    return `${m.getMonth() + 1}/${day}/${m.getFullYear()}`;
  };

const TREE_A = 'treeview/examples/treeview-1a.html';
const TREE_B = 'treeview/examples/treeview-1b.html';
const TREE_NAV = 'treeview/examples/treeview-navigation.html';
const MENU_BUTTON = 'menu-button/examples/menu-button-actions.html';
const MENU_BUTTON_AD = 'menu-button/examples/menu-button-actions-active-descendant.html';
const MENUBAR = 'menubar/examples/menubar-editor.html';
const COMBO_LIST = 'combobox/examples/combobox-autocomplete-list.html';
const COMBO_BOTH = 'combobox/examples/combobox-autocomplete-both.html';
const COMBO_SELECT = 'combobox/examples/combobox-select-only.html';
const COMBO_DATE = 'combobox/examples/combobox-datepicker.html';
const DATE_DIALOG = 'dialog-modal/examples/datepicker-dialog.html';
const DIALOG = 'dialog-modal/examples/dialog.html';
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

const SELECTED_FILE = value('#last_action');
const MENU_OUTPUT = value('#action_output');
const MENUBAR_TEXT = '#ex1 textarea';

export const APG_TASKS: ApgTask[] = [
  // ---------- tree views ----------
  {
    id: 'tree-computed-open-file',
    page: TREE_A,
    pattern: 'treeview',
    action: 'In My Documents, open the Projects folder, then Project 3, and select the file project-3B.docx.',
    steps: ["expand 'Projects'", "expand 'Project 3'", "click 'project-3B.docx'", 'done'],
    state: SELECTED_FILE,
    expected: 'project-3B.docx',
  },
  {
    id: 'tree-computed-letter',
    page: TREE_A,
    pattern: 'treeview',
    action: 'Select letter-2C.docx from the Letters folder.',
    steps: ["expand 'Letters'", "expand 'letter-2'", "click 'letter-2C.docx'", 'done'],
    state: SELECTED_FILE,
    expected: 'letter-2C.docx',
  },
  {
    id: 'tree-declared-report',
    page: TREE_B,
    pattern: 'treeview',
    action: 'Select the file report-2D.docx under Reports › report-2.',
    steps: ["expand 'Reports'", "expand 'report-2'", "click 'report-2D.docx'", 'done'],
    state: SELECTED_FILE,
    expected: 'report-2D.docx',
  },
  {
    id: 'tree-declared-folder',
    page: TREE_B,
    pattern: 'treeview',
    action: 'Select the folder project-5 (inside Projects).',
    steps: ["expand 'Projects'", "click 'project-5'", 'done'],
    state: SELECTED_FILE,
    expected: 'project-5',
  },
  {
    id: 'tree-nav-history',
    page: TREE_NAV,
    pattern: 'treeview (navigation)',
    action: "Go to the Mythical University's History page (About › Facts › History).",
    steps: ["expand 'About'", "expand 'Facts'", "click 'History'", 'done'],
    state: `[location.hash, ${attr('[role=tree] [aria-current=page]', 'href')}]`,
    expected: ['#history', '#history'],
  },
  {
    id: 'tree-nav-tuition',
    page: TREE_NAV,
    pattern: 'treeview (navigation)',
    action: 'Open the Tuition page under Admissions.',
    steps: ["expand 'Admissions'", "click 'Tuition'", 'done'],
    state: `[location.hash, ${attr('[role=tree] [aria-current=page]', 'href')}]`,
    expected: ['#tuition', '#tuition'],
  },

  // ---------- menu buttons and menubar ----------
  {
    id: 'menu-button-action',
    page: MENU_BUTTON,
    pattern: 'menu button',
    action: 'Run Action 3 from the Actions menu.',
    steps: ["click 'Actions'", "click 'Action 3'", 'done'],
    state: MENU_OUTPUT,
    expected: 'Action 3',
    quick: true,
  },
  {
    id: 'menu-button-active-descendant',
    page: MENU_BUTTON_AD,
    pattern: 'menu button',
    action: 'Choose Action 4 in the Actions menu.',
    steps: ["click 'Actions'", "click 'Action 4'", 'done'],
    state: MENU_OUTPUT,
    expected: 'Action 4',
  },
  {
    id: 'menubar-font',
    page: MENUBAR,
    pattern: 'menubar',
    action: 'Set the text sample in the editor to the Monospace font.',
    steps: ["click 'Font'", "click 'Monospace'", 'done'],
    state: style(MENUBAR_TEXT, 'fontFamily'),
    expected: 'monospace',
    quick: true,
  },
  {
    id: 'menubar-bold-red',
    page: MENUBAR,
    pattern: 'menubar',
    action: 'Make the text sample bold and red.',
    steps: ["click 'Style/Color'", "click 'Bold'", "click 'Style/Color'", "click 'Red'", 'done'],
    state: `[${style(MENUBAR_TEXT, 'fontWeight')}, ${style(MENUBAR_TEXT, 'color')}]`,
    expected: ['bold', 'red'],
  },
  {
    id: 'menubar-align',
    page: MENUBAR,
    pattern: 'menubar',
    action: 'Center the text in the editor.',
    steps: ["click 'Text Align'", "click 'Center'", 'done'],
    state: style(MENUBAR_TEXT, 'textAlign'),
    expected: 'center',
  },
  {
    id: 'menubar-size',
    page: MENUBAR,
    pattern: 'menubar',
    action: 'Set the text size to X-Large.',
    steps: ["click 'Size'", "click 'X-Large'", 'done'],
    state: style(MENUBAR_TEXT, 'fontSize'),
    expected: 'x-large',
  },

  // ---------- comboboxes ----------
  {
    id: 'combo-autocomplete-list',
    page: COMBO_LIST,
    pattern: 'combobox (autocomplete list)',
    action: 'Choose Alaska as the state.',
    steps: ["type 'Ala' into 'State'", "click 'Alaska'", 'done'],
    state: value('#cb1-input'),
    expected: 'Alaska',
  },
  {
    id: 'combo-list-button',
    page: COMBO_LIST,
    pattern: 'combobox (autocomplete list)',
    action: 'Open the list of states and pick Wyoming.',
    steps: ["click 'States'", "click 'Wyoming'", 'done'],
    state: value('#cb1-input'),
    expected: 'Wyoming',
    quick: true,
  },
  {
    id: 'combo-autocomplete-both',
    page: COMBO_BOTH,
    pattern: 'combobox (autocomplete both)',
    action: 'Set the state to New Mexico.',
    steps: ["type 'New' into 'State'", "click 'New Mexico'", 'done'],
    state: value('#cb1-input'),
    expected: 'New Mexico',
  },
  {
    id: 'combo-select-only',
    page: COMBO_SELECT,
    pattern: 'combobox (select-only)',
    action: 'Make Guava my favorite fruit.',
    steps: ["click 'Favorite Fruit'", "click 'Guava'", 'done'],
    state: `${q('#combo1')}.textContent.trim()`,
    expected: 'Guava',
  },
  {
    id: 'combo-datepicker',
    page: COMBO_DATE,
    pattern: 'combobox (date picker grid)',
    action: 'Pick the 15th of this month as the date.',
    steps: ["click 'Choose Date'", "click '15'", 'done'],
    state: value('#cb-textbox-1'),
    expected: dayOfMonth(15),
  },
  {
    id: 'combo-datepicker-next-month',
    page: COMBO_DATE,
    pattern: 'combobox (date picker grid)',
    action: 'Pick the 3rd of next month as the date.',
    steps: ["click 'Choose Date'", "click 'next month'", "click '3'", 'done'],
    state: value('#cb-textbox-1'),
    expected: dayOfMonth(3, 1),
  },

  // ---------- dialogs ----------
  {
    id: 'datepicker-dialog',
    page: DATE_DIALOG,
    pattern: 'dialog (date picker grid)',
    action: 'Choose the 20th of this month in the date picker.',
    steps: ["click 'Choose Date'", "click '20'", 'done'],
    state: value('#id-textbox-1'),
    expected: dayOfMonth(20),
    quick: true,
  },
  {
    id: 'datepicker-dialog-prev-month',
    page: DATE_DIALOG,
    pattern: 'dialog (date picker grid)',
    action: 'Choose the 10th of last month in the date picker.',
    steps: ["click 'Choose Date'", "click 'previous month'", "click '10'", 'done'],
    state: value('#id-textbox-1'),
    expected: dayOfMonth(10, -1),
  },
  {
    id: 'datepicker-dialog-typed',
    page: DATE_DIALOG,
    pattern: 'dialog (date picker grid)',
    action: 'Enter the date 07/04/2026.',
    steps: ["type '07/04/2026' into 'Date'", 'done'],
    state: value('#id-textbox-1'),
    expected: '07/04/2026',
  },
  {
    id: 'dialog-add-address',
    page: DIALOG,
    pattern: 'modal dialog',
    action: 'Add a delivery address: 12 Elm St, Springfield, IL 62701.',
    steps: [
      "click 'Add Delivery Address'",
      "type '12 Elm St' into 'Street'",
      "type 'Springfield' into 'City'",
      "type 'IL' into 'State'",
      "type '62701' into 'Zip'",
      "click 'Add'",
      'done',
    ],
    state: `[${values('#dialog1 input')}, ${q('#dialog3')}.className !== 'hidden']`,
    expected: [['12 Elm St', 'Springfield', 'IL', '62701', ''], true],
    quick: true,
  },

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
    id: 'radio-pizza',
    page: RADIO,
    pattern: 'radio group',
    action: 'Order a thin crust pizza for home delivery.',
    steps: ["click 'Thin crust'", "click 'Home Delivery'", 'done'],
    state: texts('[role=radio][aria-checked=true]'),
    expected: ['Thin crust', 'Home Delivery'],
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
    quick: true,
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
    quick: true,
  },
  {
    id: 'treegrid-collapse',
    page: TREEGRID,
    pattern: 'treegrid',
    action: "Collapse the e-mail thread 'Treegrids are awesome'.",
    steps: ["click 'Treegrids are awesome'", 'done'],
    state: attr('#treegrid tr[aria-level="1"]', 'aria-expanded'),
    expected: 'false',
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
