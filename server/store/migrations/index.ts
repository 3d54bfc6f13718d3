import { InitialSchema1763700000000 } from './1763700000000-initial-schema';
import { SandboxSites1763700100000 } from './1763700100000-sandbox-sites';
import { AgentRuns1763700300000 } from './1763700300000-agent-runs';
import { LinkSessions1763700400000 } from './1763700400000-link-sessions';
import { AgentTrajectories1763700500000 } from './1763700500000-agent-trajectories';
import { DashboardAccounts1763700800000 } from './1763700800000-dashboard-accounts';
import { ApiLimits1763700950000 } from './1763700950000-api-limits';
import { Webhooks1763701000000 } from './1763701000000-webhooks';
import { AgentRequestMode1763701100000 } from './1763701100000-agent-request-mode';
import { AgentRequestPlaybookWarnings1763701200000 } from './1763701200000-agent-request-playbook-warnings';
import { AgentRequestTraceParent1763701300000 } from './1763701300000-agent-request-trace-parent';
import { LinkTokenSignIn1763701400000 } from './1763701400000-link-token-sign-in';
import { OrganizationProviders1763701500000 } from './1763701500000-organization-providers';
import { LinkSessionHost1763701600000 } from './1763701600000-link-session-host';
import { LinkCompletion1763701700000 } from './1763701700000-link-completion';
import { ConnectionHealth1763701800000 } from './1763701800000-connection-health';
import { ConnectionDevice1763701900000 } from './1763701900000-connection-device';
import { UserAction1763702000000 } from './1763702000000-user-action';
import { DashboardInvitations1763706000000 } from './1763706000000-dashboard-invitations';
import { AgentRequestAttempts1763707000000 } from './1763707000000-agent-request-attempts';
import { TrajectoriesPerMode1763720000000 } from './1763720000000-trajectories-per-mode';
import { TrajectoryStaleness1763721000000 } from './1763721000000-trajectory-staleness';
import { CheckedTrajectories1763721100000 } from './1763721100000-checked-trajectories';
import { SignedAgent1763722000000 } from './1763722000000-signed-agent';
import { StoredUserDecision1763723500000 } from './1763723500000-stored-user-decision';
import { ConnectionPasskey1763724000000 } from './1763724000000-connection-passkey';
import { DeploymentKeys1763725000000 } from './1763725000000-deployment-keys';

/** Every migration in order; a new one is appended here. */
export const migrations = [
  InitialSchema1763700000000,
  SandboxSites1763700100000,
  AgentRuns1763700300000,
  LinkSessions1763700400000,
  AgentTrajectories1763700500000,
  DashboardAccounts1763700800000,
  ApiLimits1763700950000,
  Webhooks1763701000000,
  AgentRequestMode1763701100000,
  AgentRequestPlaybookWarnings1763701200000,
  AgentRequestTraceParent1763701300000,
  LinkTokenSignIn1763701400000,
  OrganizationProviders1763701500000,
  LinkSessionHost1763701600000,
  LinkCompletion1763701700000,
  ConnectionHealth1763701800000,
  ConnectionDevice1763701900000,
  UserAction1763702000000,
  DashboardInvitations1763706000000,
  AgentRequestAttempts1763707000000,
  TrajectoriesPerMode1763720000000,
  TrajectoryStaleness1763721000000,
  CheckedTrajectories1763721100000,
  SignedAgent1763722000000,
  StoredUserDecision1763723500000,
  ConnectionPasskey1763724000000,
  DeploymentKeys1763725000000,
];
