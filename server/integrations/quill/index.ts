import type { Integration } from '../integration';
import { quillProvider } from './quill.provider';
import { quillSite } from './site/site';

/** Quill, the sandbox's notes site with passkeys (a WebAuthn relying party), for trying passkeys end to end. */
export const quill: Integration = {
  slug: 'quill',
  provider: quillProvider,
  site: quillSite,
  playbooks: [],
};
