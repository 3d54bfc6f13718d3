import { InitialSchema1763700000000 } from './1763700000000-initial-schema';
import { SandboxSites1763700100000 } from './1763700100000-sandbox-sites';
import { AgentRuns1763700300000 } from './1763700300000-agent-runs';
import { LinkSessions1763700400000 } from './1763700400000-link-sessions';
import { AgentTrajectories1763700500000 } from './1763700500000-agent-trajectories';

/** Every migration in order; a new one is appended here. */
export const migrations = [InitialSchema1763700000000, SandboxSites1763700100000, AgentRuns1763700300000, LinkSessions1763700400000, AgentTrajectories1763700500000];
