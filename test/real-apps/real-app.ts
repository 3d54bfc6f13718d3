/**
 * The real-app corpus: open-source web apps nobody here wrote, installed from the npm registry (./apps/package.json)
 * and run on loopback. Each is declared as an organization's private provider, signed in to through the live view as
 * a person would (pointing and typing on the widget's canvas), then read through the planner with the label-picking
 * model (../agent-corpus/label-picker.ts: it picks only from what the observation says), and read again, which should
 * replay with no model call.
 */
export interface RealAppRead {
  id: string;
  /** The action as a user asks for it. */
  action: string;
  /** Path on the app's origin where the run starts. */
  path: string;
  responseFormat: Record<string, string>;
  /** Person-phrased steps for the label-picking model (../agent-corpus/steps.ts). */
  steps: string[];
  /** The answer a person reading the page would give. */
  expected: Record<string, unknown>;
  /** Text only the drawn content shows: the first observation "shows the content" when it holds this. */
  content: string;
}

/** One thing the person does on the live page: point at what a selector finds and click, type keys, or press one. */
export type SignInStep = { click: string } | { type: string } | { press: string };

export interface RealAppDefinition {
  id: string;
  /** The npm package and what it is. */
  title: string;
  start(): Promise<{ baseUrl: string; version: string; stop(): Promise<void> }>;
  /** The provider declaration's own fields (urls and origins come from the running app). */
  /**
   * `signedInElement`: what only a signed-in page has (the live view closes when it appears). `loginPagePattern`: the
   * URL of its sign-in page; both apps sign in in a dialog over whatever page was asked for, so no URL is one (`^$`
   * matches no href), and the signed-in element alone tells a live session from a dead one. `readyWhen`: what the app
   * shows once it has drawn its content (declared when the server's declaration has the field: see declareProvider).
   */
  provider: { name: string; slug: string; signedInElement: string; loginPagePattern: string; readyWhen: { selector: string } };
  signIn: SignInStep[];
  reads: RealAppRead[];
}

/** A version as the registry's UI prints it (`v0.9.0`), read as a person answers it: the number. */
const VERSION = '/v(\\d+\\.\\d+\\.\\d+)/';
/** A line that is a plain sentence: a capitalised word, then at least two lower-case words, maybe a full stop. */
const SENTENCE = '/^([A-Z][a-z]+(?: [a-z-]+){2,}\\.?)$/m';

export const VERDACCIO: Omit<RealAppDefinition, 'start'> = {
  id: 'verdaccio',
  title: 'Verdaccio (npm registry; React UI, sign-in in a modal, JWT in localStorage)',
  provider: {
    name: 'Acme packages',
    slug: 'acme-packages',
    signedInElement: '#header--button-account',
    loginPagePattern: '^$',
    // The package list, or the help card of an empty registry.
    readyWhen: { selector: '[data-testid="package-item-list"], [data-testid="help-card"]' },
  },
  signIn: [
    { click: 'header button:has-text("Login")' },
    { click: '#login--dialog-username' },
    { type: 'ada' },
    { click: '#login--dialog-password' },
    { type: 'corpus-Verdaccio-7' },
    { press: 'Enter' },
  ],
  reads: [
    {
      id: 'latest-version',
      action: 'What is the latest version of the @acme/ledger-sync package?',
      path: '/',
      responseFormat: { version: 'string - the latest version number' },
      steps: [`read version as ${VERSION} near '@acme/ledger-sync'`, 'done'],
      expected: { version: '0.9.0' },
      content: '@acme/ledger-sync',
    },
    {
      id: 'package-description',
      action: 'What does the tiny-cron-parse package do?',
      path: '/',
      responseFormat: { description: "string - the package's description" },
      steps: [`read description as ${SENTENCE} near 'tiny-cron-parse'`, 'done'],
      expected: { description: 'Parses cron expressions into schedules' },
      content: 'tiny-cron-parse',
    },
  ],
};

export const NODE_RED: Omit<RealAppDefinition, 'start'> = {
  id: 'node-red',
  title: 'Node-RED (flow editor; login form, then a large single-page editor)',
  provider: {
    name: 'Acme automations',
    slug: 'acme-automations',
    signedInElement: '.red-ui-user-profile',
    loginPagePattern: '^$',
    // A flow's tab: the editor has loaded the flows (until then it says "Loading Flows").
    readyWhen: { selector: '#red-ui-workspace-tabs .red-ui-tab' },
  },
  signIn: [
    { click: '#node-dialog-login-username' },
    { type: 'grace' },
    { click: '#node-dialog-login-password' },
    { type: 'corpus-NodeRed-7' },
    { press: 'Enter' },
  ],
  reads: [
    {
      id: 'flow-description',
      action: 'What does my Sensor alerts flow do?',
      path: '/',
      responseFormat: { description: "string - the flow's description" },
      // The editor's info panel shows the open flow's name, "Flow" and its id (`"tab2"`), then its description. The
      // id is the anchor: the outline sidebar, listed item by item, has its own "Flow" heading in some locales (the
      // live view's device draws its language per connection).
      steps: ["click 'Sensor alerts'", `read description as ${SENTENCE} near '"tab2"'`, 'done'],
      expected: { description: 'Pages the on-call engineer when a reading crosses its threshold.' },
      content: 'Nightly backup',
    },
  ],
};
