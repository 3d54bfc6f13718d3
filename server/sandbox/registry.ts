import type { SiteDefinition } from './kit/site';

/** The simulated provider websites served in the sandbox environment (one folder each). */
export const SANDBOX_SITES: SiteDefinition[] = [];
