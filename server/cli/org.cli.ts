import type { AppConfig, Environment } from '../config';
import type * as AccountsModule from '../dashboard/accounts.service';
import type * as InvitationsModule from '../dashboard/invitations.service';
import type * as MembersModule from '../dashboard/members.service';
import type * as ClockModule from '../domain/clock';
import type * as OrganizationsModule from '../domain/organizations.service';
import type { OrganizationService } from '../domain/organizations.service';
import type * as StoreModule from '../store';
import type { Store } from '../store';
import { type Command, type CommandGroup, UsageError } from './command-table';
import { checkDatabase, type DatabaseIntent } from './database-check';
import { sameConfigPrefix } from './same-config';

/**
 * `agentlink org …`: organizations from the command line (an operator's tool; the dashboard does the same for people).
 * Every URL it prints comes from the configuration it reads (AGENTLINK_PUBLIC_URL, else http://localhost:$PORT).
 * One entry of ORG_COMMANDS per subcommand: its usage, summary and options give its --help and its parsing
 * (server/cli/command-table.ts).
 */
type Out = (json: boolean, value: unknown, text: string) => void;

export interface OrgContext {
  config: AppConfig;
  print: Out;
  /** Where warnings go (stderr): never into the --json answer on stdout. */
  warn: (text: string) => void;
}

/*
 * The store and the services load when a command runs, not with the table (--help stays instant): require, not
 * import(), because tsx's CommonJS hook (how bin/agentlink.js runs the sources) resolves require only.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const load = {
  store: () => require('../store') as typeof StoreModule,
  organizations: () => require('../domain/organizations.service') as typeof OrganizationsModule,
  accounts: () => require('../dashboard/accounts.service') as typeof AccountsModule,
  invitations: () => require('../dashboard/invitations.service') as typeof InvitationsModule,
  members: () => require('../dashboard/members.service') as typeof MembersModule,
  clock: () => require('../domain/clock') as typeof ClockModule,
};
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * Opens the configured database, with the organization service on it. `create` (org create): a missing SQLite file is
 * created, with a loud warning that it is a NEW database; anything else refuses to act on a database that does not
 * exist (it would be a new, empty one).
 */
async function withStore<T>(
  ctx: OrgContext,
  intent: DatabaseIntent,
  fn: (db: { store: Store; orgs: OrganizationService }) => Promise<T>,
): Promise<T> {
  checkDatabase(ctx.config, intent, ctx.warn);
  const { Store } = load.store();
  const { OrganizationService } = load.organizations();
  const { systemClock } = load.clock();
  const store = await Store.open(ctx.config.database);
  try {
    return await fn({ store, orgs: new OrganizationService(store, systemClock) });
  } finally {
    await store.close();
  }
}

const json = { type: 'boolean', default: false } as const;
const JSON_HELP = 'print the answer as JSON';
const ORG_HELP = 'the Client ID (cli_…) or the organization id (org_…)';

function cliLine(config: AppConfig, rest: string) {
  const { prefix, note } = sameConfigPrefix(config);
  return `${prefix}npx agentlink ${rest}${note ? `   (${note})` : ''}`;
}

const create: Command<OrgContext> = {
  name: 'create',
  args: '--name "Acme" [--json]',
  summary: 'create an organization and print its credentials once',
  details: [
    'Acts on the database of the configuration it reads (AGENTLINK_DATA_DIR or DATABASE_URL, from the environment or .env):',
    "run it with the server's settings; the server's start-up banner prints this command with them.",
  ],
  options: { name: { type: 'string' }, json },
  optionHelp: { name: 'the organization name (1-200 characters)', json: JSON_HELP },
  async run(ctx, values) {
    const name = (values.name as string | undefined)?.trim();
    if (!name || name.length > 200) throw new UsageError('org create needs --name "<organization name>" (1-200 characters)');
    const { config } = ctx;
    const dashboard = `${config.publicUrl}/dashboard`;
    await withStore(ctx, 'create', async ({ orgs }) => {
      const c = await orgs.create(name);
      ctx.print(
        values.json === true,
        {
          organizationId: c.organization.id,
          name,
          clientId: c.clientId,
          sandboxSecret: c.sandboxSecret,
          productionSecret: c.productionSecret,
          baseUrl: config.publicUrl,
          dashboardUrl: dashboard,
        },
        [
          `Created organization ${name} (${c.organization.id})`,
          `  Client ID          ${c.clientId}`,
          `  Sandbox secret     ${c.sandboxSecret}`,
          `  Production secret  ${c.productionSecret}`,
          `  Base URL           ${config.publicUrl}   (AGENTLINK_PUBLIC_URL, else http://localhost:$PORT)`,
          '',
          'The secrets are shown once and stored only as hashes. Keep them in your backend configuration:',
          `  AGENTLINK_CLIENT_ID=${c.clientId} AGENTLINK_CLIENT_SECRET=${c.sandboxSecret} AGENTLINK_BASE_URL=${config.publicUrl}`,
          '',
          `To manage it in the dashboard, sign up at ${dashboard}/sign-up, then:`,
          `  ${cliLine(config, `org add-member --org ${c.clientId} --email you@example.com --role owner`)}`,
        ].join('\n'),
      );
    });
  },
};

const list: Command<OrgContext> = {
  name: 'list',
  args: '[--json]',
  summary: 'list organizations (never their secrets)',
  options: { json },
  optionHelp: { json: JSON_HELP },
  async run(ctx, values) {
    await withStore(ctx, 'use', async ({ orgs }) => {
      const rows = (await orgs.list()).map((o) => ({
        organizationId: o.id,
        name: o.name,
        clientId: o.clientId,
        createdAt: o.createdAt.toISOString(),
      }));
      ctx.print(
        values.json === true,
        rows,
        rows.length ? rows.map((r) => `${r.clientId}  ${r.organizationId}  ${r.createdAt}  ${r.name}`).join('\n') : 'No organizations yet.',
      );
    });
  },
};

const rotateSecret: Command<OrgContext> = {
  name: 'rotate-secret',
  args: '--org <clientId|orgId> --env sandbox|production [--json]',
  summary: 'issue a new secret; the old one stops working at once',
  options: { org: { type: 'string' }, env: { type: 'string' }, json },
  optionHelp: { org: ORG_HELP, env: 'sandbox or production: the secret to replace', json: JSON_HELP },
  async run(ctx, values) {
    const org = values.org as string | undefined;
    const env = values.env as Environment | undefined;
    if (!org || (env !== 'sandbox' && env !== 'production')) {
      throw new UsageError('org rotate-secret needs --org <clientId|orgId> and --env sandbox|production');
    }
    await withStore(ctx, 'use', async ({ orgs }) => {
      const result = await orgs.rotateSecret(org, env);
      if (!result.ok) throw new UsageError(`no organization ${org}`);
      const { organization, secret } = result.value;
      ctx.print(
        values.json === true,
        { organizationId: organization.id, clientId: organization.clientId, environment: env, secret },
        `New ${env} secret for ${organization.name} (${organization.clientId}):\n  ${secret}\nThe previous ${env} secret no longer works.`,
      );
    });
  },
};

const addMember: Command<OrgContext> = {
  name: 'add-member',
  args: '--org <clientId|orgId> --email <email> [--role owner|member] [--json]',
  summary: 'give a dashboard account (signed up at /dashboard) access to the organization',
  options: { org: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' }, json },
  optionHelp: { org: ORG_HELP, email: 'the email of the dashboard account', role: 'owner or member (default member)', json: JSON_HELP },
  async run(ctx, values) {
    const org = values.org as string | undefined;
    const emailArg = values.email as string | undefined;
    const role = (values.role as string | undefined) ?? 'member';
    if (!org || !emailArg || (role !== 'owner' && role !== 'member')) {
      throw new UsageError('org add-member needs --org <clientId|orgId> and --email <email> (and optionally --role owner|member)');
    }
    const dashboard = `${ctx.config.publicUrl}/dashboard`;
    await withStore(ctx, 'use', async ({ store, orgs }) => {
      const organization = await orgs.find(org);
      if (!organization) throw new UsageError(`no organization ${org}`);
      const { DashboardAccountService } = load.accounts();
      const { systemClock } = load.clock();
      const accounts = new DashboardAccountService(store, systemClock, orgs);
      if (!(await accounts.addMember(organization.id, emailArg, role))) {
        throw new UsageError(`No dashboard account has the email ${emailArg}: sign up at ${dashboard}/sign-up first, then run this again.`);
      }
      const email = emailArg.trim().toLowerCase();
      // An existing membership keeps its role: the answer says which it is.
      const membership = await accounts.roleOfEmail(organization.id, email);
      ctx.print(
        values.json === true,
        {
          organizationId: organization.id,
          clientId: organization.clientId,
          email,
          role: membership,
          dashboardUrl: `${dashboard}/orgs/${organization.id}`,
        },
        `${email} is ${membership === 'owner' ? 'an owner' : 'a member'} of ${organization.name}: ${dashboard}/orgs/${organization.id}`,
      );
    });
  },
};

const removeMember: Command<OrgContext> = {
  name: 'remove-member',
  args: '--org <clientId|orgId> --email <email> [--json]',
  summary: "take a person's access away (never the organization's last owner)",
  options: { org: { type: 'string' }, email: { type: 'string' }, json },
  optionHelp: { org: ORG_HELP, email: 'the email of the dashboard account', json: JSON_HELP },
  async run(ctx, values) {
    const org = values.org as string | undefined;
    const email = values.email as string | undefined;
    if (!org || !email) throw new UsageError('org remove-member needs --org <clientId|orgId> and --email <email>');
    await withStore(ctx, 'use', async ({ store, orgs }) => {
      const organization = await orgs.find(org);
      if (!organization) throw new UsageError(`no organization ${org}`);
      const { OrganizationMembersService } = load.members();
      const removed = await new OrganizationMembersService(store).remove(organization.id, { email });
      if (!removed.ok) throw new UsageError(removed.message);
      const { email: who, role } = removed.member;
      ctx.print(
        values.json === true,
        { organizationId: organization.id, clientId: organization.clientId, email: who, role, removed: true },
        `${who} (${role}) no longer has access to ${organization.name}.`,
      );
    });
  },
};

const invite: Command<OrgContext> = {
  name: 'invite',
  args: '--org <clientId|orgId> [--role owner|member] [--json]',
  summary: 'print an invitation link (one use, 7 days); sign-up through it works with AGENTLINK_SIGNUP=invite',
  options: { org: { type: 'string' }, role: { type: 'string' }, json },
  optionHelp: { org: ORG_HELP, role: 'owner or member (default member)', json: JSON_HELP },
  async run(ctx, values) {
    const org = values.org as string | undefined;
    const role = (values.role as string | undefined) ?? 'member';
    if (!org || (role !== 'owner' && role !== 'member')) {
      throw new UsageError('org invite needs --org <clientId|orgId> (and optionally --role owner|member)');
    }
    const dashboard = `${ctx.config.publicUrl}/dashboard`;
    await withStore(ctx, 'use', async ({ store, orgs }) => {
      const organization = await orgs.find(org);
      if (!organization) throw new UsageError(`no organization ${org}`);
      const { InvitationService } = load.invitations();
      const { systemClock } = load.clock();
      const made = await new InvitationService(store, systemClock).create(organization.id, null, role);
      if (!made.ok) throw new UsageError(made.message);
      const url = `${dashboard}/invitations/${made.value.token}`;
      const until = made.value.invitation.expiresAt.toISOString();
      ctx.print(
        values.json === true,
        { organizationId: organization.id, clientId: organization.clientId, role, invitationUrl: url, expiresAt: until },
        `Invitation to ${organization.name} as ${role === 'owner' ? 'an owner' : 'a member'} (one use, until ${until}):\n  ${url}`,
      );
    });
  },
};

/** org disable / org enable: the same switch. */
function switchCommand(disable: boolean): Command<OrgContext> {
  return {
    name: disable ? 'disable' : 'enable',
    args: '--org <clientId|orgId> [--json]',
    summary: disable
      ? "refuse the organization's credentials (ORGANIZATION_DISABLED) and close its dashboard"
      : 'let a disabled organization in again',
    options: { org: { type: 'string' }, json },
    optionHelp: { org: ORG_HELP, json: JSON_HELP },
    async run(ctx, values) {
      const org = values.org as string | undefined;
      if (!org) throw new UsageError(`org ${disable ? 'disable' : 'enable'} needs --org <clientId|orgId>`);
      await withStore(ctx, 'use', async ({ orgs }) => {
        const result = await orgs.setDisabled(org, disable);
        if (!result.ok) throw new UsageError(`no organization ${org}`);
        const organization = result.value;
        ctx.print(
          values.json === true,
          { organizationId: organization.id, clientId: organization.clientId, disabled: disable },
          disable
            ? `${organization.name} (${organization.clientId}) is disabled: its credentials are refused (ORGANIZATION_DISABLED) and its dashboard is closed.`
            : `${organization.name} (${organization.clientId}) is enabled again.`,
        );
      });
    },
  };
}

/** `agentlink org <command>`: add a subcommand by adding its Command to this list. */
export const ORG_COMMANDS: CommandGroup<OrgContext> = {
  name: 'org',
  summary: 'Organizations: their credentials and the dashboard accounts that manage them.',
  commands: [create, list, rotateSecret, addMember, removeMember, invite, switchCommand(true), switchCommand(false)],
};
