import { InitialSchema1763700000000 } from './1763700000000-initial-schema';
import { SandboxSites1763700100000 } from './1763700100000-sandbox-sites';

/** Every migration in order; a new one is appended here. */
export const migrations = [InitialSchema1763700000000, SandboxSites1763700100000];
