import type { ProviderDefinition } from './provider';

/**
 * Real providers of the production environment. Production reaches only these domains; the
 * sandbox never does. Their login recipes arrive with the connect-flow work.
 */
export const PRODUCTION_PROVIDERS: ProviderDefinition[] = [
  {
    providerId: '2f0c6a8e-1d4b-4c9a-9e3f-7b5a1c2d3e01',
    name: 'GitHub',
    slug: 'github',
    category: 'developer',
    environment: 'production',
    homeUrl: 'https://github.com/',
    loginUrl: 'https://github.com/login',
    allowedDomains: ['github.com'],
    logoSvg:
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#24292f"/><circle cx="32" cy="30" r="14" fill="#fff"/></svg>',
  },
  {
    providerId: '7a3d9e21-5b8c-4f06-a1d2-c3e4f5a6b702',
    name: 'LinkedIn',
    slug: 'linkedin',
    category: 'social',
    environment: 'production',
    homeUrl: 'https://www.linkedin.com/',
    loginUrl: 'https://www.linkedin.com/login',
    allowedDomains: ['linkedin.com'],
    logoSvg:
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#0a66c2"/><text x="14" y="46" font-family="Arial" font-weight="700" font-size="34" fill="#fff">in</text></svg>',
  },
  {
    providerId: 'c8e1f2a3-4b5c-4d6e-8f70-91a2b3c4d503',
    name: 'X',
    slug: 'x',
    category: 'social',
    environment: 'production',
    homeUrl: 'https://x.com/',
    loginUrl: 'https://x.com/i/flow/login',
    allowedDomains: ['x.com', 'twitter.com'],
    logoSvg:
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#000"/><path d="M18 16 L46 48 M46 16 L18 48" stroke="#fff" stroke-width="5"/></svg>',
  },
];
