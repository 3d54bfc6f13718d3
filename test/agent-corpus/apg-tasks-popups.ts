import type { ApgTask } from './apg-harness';
import { attr, dayOfMonth, q, style, texts, value, values } from './apg-state';

/** Tasks on the guide's trees, menus, comboboxes and dialogs: widgets that open, expand or pop up. */
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
const DISCLOSURE_NAV = 'disclosure/examples/disclosure-navigation.html';
const SELECTED_FILE = value('#last_action');
const MENU_OUTPUT = value('#action_output');
const MENUBAR_TEXT = '#ex1 textarea';

export const POPUP_TASKS: ApgTask[] = [
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
    // the page's script cancels the link's navigation and shows the content itself (the URL keeps its hash)
    state: `[${texts('.page .main h1')}[0], ${attr('[role=tree] [aria-current=page]', 'href')}]`,
    expected: ['History', '#history'],
  },
  {
    id: 'tree-nav-tuition',
    page: TREE_NAV,
    pattern: 'treeview (navigation)',
    action: 'Open the Tuition page under Admissions.',
    steps: ["expand 'Admissions'", "click 'Tuition'", 'done'],
    // the page's script cancels the link's navigation and shows the content itself (the URL keeps its hash)
    state: `[${texts('.page .main h1')}[0], ${attr('[role=tree] [aria-current=page]', 'href')}]`,
    expected: ['Tuition', '#tuition'],
  },

  {
    id: 'disclosure-nav-tuition',
    page: DISCLOSURE_NAV,
    pattern: 'disclosure (navigation menu)',
    action: "Go to the Tuition page in the Mythical University site's Admissions menu.",
    steps: ["expand 'Admissions'", "click 'Tuition'", 'done'],
    state: texts('#exTest a[aria-current=page]'),
    expected: ['Tuition'],
  },
  {
    id: 'disclosure-nav-facts',
    page: DISCLOSURE_NAV,
    pattern: 'disclosure (navigation menu)',
    action: 'Open the Facts page from the About menu.',
    steps: ["expand 'About'", "click 'Facts'", 'done'],
    state: texts('#exTest a[aria-current=page]'),
    expected: ['Facts'],
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
    quick: true,
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
    steps: ["click 'Choose a Fruit'", "click 'Guava'", 'done'],
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
];
