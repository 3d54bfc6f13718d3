import type { SiteDefinition } from './kit/site';
import { forgehubSite } from './forgehub/site';
import { orbitSite } from './orbit/site';

/** The simulated provider websites served in the sandbox environment (one folder each). */
export const SANDBOX_SITES: SiteDefinition[] = [orbitSite, forgehubSite];
