import { parseArgs } from 'node:util';

import type { AppConfig, Environment } from '../config';
import { DashboardAccountService } from '../dashboard/accounts.service';
import { InvitationService } from '../dashboard/invitations.service';
import { OrganizationMembersService } from '../dashboard/members.service';
import { systemClock } from '../domain/clock';
import { OrganizationService } from '../domain/organizations.service';
import { Store } from '../store';
import { sameConfigPrefix } from './same-config';

/**
 * `agentlink org …`: organizations from the command line (an operator's tool; the dashboard does the same for people).
 * Every URL it prints comes from the configuration it reads (AGENTLINK_PUBLIC_URL, else http://localhost:$PORT).
 */
export const ORG_USAGE = `  org create --name "Acme" [--json]         create an organization and print its credentials once
  org list [--json]                         list organizations (never their secrets)
  org rotate-secret --org <clientId|orgId> --env sandbox|production [--json]
                                            issue a new secret; the old one stops working at once
  org add-member --org <clientId|orgId> --email <email> [--role owner|member] [--json]
                                            give a dashboard account (signed up at /dashboard) access to the organization
  org remove-member --org <clientId|orgId> --email <email> [--json]
                                            take a person's access away (never the organization's last owner)
  org invite --org <clientId|orgId> [--role owner|member] [--json]
                                            print an invitation link (one use, 7 days): sign-up through it works
                                            with AGENTLINK_SIGNUP=invite
  org disable --org <clientId|orgId> [--json]
                                            refuse the organization's credentials (ORGANIZATION_DISABLED) and close
                                            its dashboard; org enable undoes it`;

type Out = (json: boolean, value: unknown, text: string) => void;

async function withStore<T>(config: AppConfig, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await Store.open(config.database);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

export async function orgCommand(config: AppConfig, args: string[], print: Out, usage: (message: string) => Error): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      org: { type: 'string' },
      env: { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const sub = positionals[0];
  const json = values.json ?? false;
  const dashboard = `${config.publicUrl}/dashboard`;
  const cli = (rest: string) => {
    const { prefix, note } = sameConfigPrefix(config);
    return `${prefix}npx agentlink ${rest}${note ? `   (${note})` : ''}`;
  };
  await withStore(config, async (store) => {
    const orgs = new OrganizationService(store, systemClock);
    if (sub === 'create') {
      const name = values.name?.trim();
      if (!name || name.length > 200) throw usage('org create needs --name "<organization name>" (1-200 characters)');
      const c = await orgs.create(name);
      print(
        json,
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
          `  ${cli(`org add-member --org ${c.clientId} --email you@example.com --role owner`)}`,
        ].join('\n'),
      );
      return;
    }
    if (sub === 'list') {
      const list = await orgs.list();
      const rows = list.map((o) => ({ organizationId: o.id, name: o.name, clientId: o.clientId, createdAt: o.createdAt.toISOString() }));
      print(
        json,
        rows,
        rows.length ? rows.map((r) => `${r.clientId}  ${r.organizationId}  ${r.createdAt}  ${r.name}`).join('\n') : 'No organizations yet.',
      );
      return;
    }
    if (sub === 'rotate-secret') {
      const env = values.env as Environment | undefined;
      if (!values.org || (env !== 'sandbox' && env !== 'production')) {
        throw usage('org rotate-secret needs --org <clientId|orgId> and --env sandbox|production');
      }
      const result = await orgs.rotateSecret(values.org, env);
      if (!result.ok) throw usage(`no organization ${values.org}`);
      const { organization, secret } = result.value;
      print(
        json,
        { organizationId: organization.id, clientId: organization.clientId, environment: env, secret },
        `New ${env} secret for ${organization.name} (${organization.clientId}):\n  ${secret}\nThe previous ${env} secret no longer works.`,
      );
      return;
    }
    if (sub === 'add-member') {
      const role = values.role ?? 'member';
      if (!values.org || !values.email || (role !== 'owner' && role !== 'member')) {
        throw usage('org add-member needs --org <clientId|orgId> and --email <email> (and optionally --role owner|member)');
      }
      const organization = await orgs.find(values.org);
      if (!organization) throw usage(`no organization ${values.org}`);
      const accounts = new DashboardAccountService(store, systemClock, orgs);
      const added = await accounts.addMember(organization.id, values.email, role);
      if (!added) {
        throw usage(`No dashboard account has the email ${values.email}: sign up at ${dashboard}/sign-up first, then run this again.`);
      }
      const email = values.email.trim().toLowerCase();
      // An existing membership keeps its role: the answer says which it is.
      const membership = await accounts.roleOfEmail(organization.id, email);
      print(
        json,
        {
          organizationId: organization.id,
          clientId: organization.clientId,
          email,
          role: membership,
          dashboardUrl: `${dashboard}/orgs/${organization.id}`,
        },
        `${email} is ${membership === 'owner' ? 'an owner' : 'a member'} of ${organization.name}: ${dashboard}/orgs/${organization.id}`,
      );
      return;
    }
    if (sub === 'remove-member') {
      if (!values.org || !values.email) throw usage('org remove-member needs --org <clientId|orgId> and --email <email>');
      const organization = await orgs.find(values.org);
      if (!organization) throw usage(`no organization ${values.org}`);
      const removed = await new OrganizationMembersService(store).remove(organization.id, { email: values.email });
      if (!removed.ok) throw usage(removed.message);
      const { email, role } = removed.member;
      print(
        json,
        { organizationId: organization.id, clientId: organization.clientId, email, role, removed: true },
        `${email} (${role}) no longer has access to ${organization.name}.`,
      );
      return;
    }
    if (sub === 'invite') {
      const role = values.role ?? 'member';
      if (!values.org || (role !== 'owner' && role !== 'member'))
        throw usage('org invite needs --org <clientId|orgId> (and optionally --role owner|member)');
      const organization = await orgs.find(values.org);
      if (!organization) throw usage(`no organization ${values.org}`);
      const made = await new InvitationService(store, systemClock).create(organization.id, null, role);
      if (!made.ok) throw usage(made.message);
      const url = `${dashboard}/invitations/${made.value.token}`;
      print(
        json,
        {
          organizationId: organization.id,
          clientId: organization.clientId,
          role,
          invitationUrl: url,
          expiresAt: made.value.invitation.expiresAt.toISOString(),
        },
        `Invitation to ${organization.name} as ${role === 'owner' ? 'an owner' : 'a member'} (one use, until ${made.value.invitation.expiresAt.toISOString()}):\n  ${url}`,
      );
      return;
    }
    if (sub === 'disable' || sub === 'enable') {
      if (!values.org) throw usage(`org ${sub} needs --org <clientId|orgId>`);
      const result = await orgs.setDisabled(values.org, sub === 'disable');
      if (!result.ok) throw usage(`no organization ${values.org}`);
      const organization = result.value;
      print(
        json,
        { organizationId: organization.id, clientId: organization.clientId, disabled: sub === 'disable' },
        sub === 'disable'
          ? `${organization.name} (${organization.clientId}) is disabled: its credentials are refused (ORGANIZATION_DISABLED) and its dashboard is closed.`
          : `${organization.name} (${organization.clientId}) is enabled again.`,
      );
      return;
    }
    throw usage(`usage: agentlink org <create|list|rotate-secret|add-member|remove-member|invite|disable|enable> …\n${ORG_USAGE}`);
  });
}
