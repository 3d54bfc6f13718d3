import type { Integration } from '../integration';
import { idpSite } from './idp/site';
import { lumenProvider } from './lumen.provider';
import { lumenReadReadingList } from './playbooks/read-reading-list.playbook';
import { lumenSite } from './site/site';

/** Lumen, the sandbox's reading list without a login recipe (live sign-in through the simulated identity provider). */
export const lumen: Integration = {
  slug: 'lumen',
  provider: lumenProvider,
  site: lumenSite,
  identitySites: [idpSite],
  playbooks: [lumenReadReadingList],
};
