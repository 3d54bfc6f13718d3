import type { SiteDefinition } from '../../../sandbox/kit/site';
import { orbitLayout } from './layout';
import { homeRoutes } from './pages/home';
import { messagingRoutes } from './pages/messaging';
import { notificationRoutes } from './pages/notifications';
import { peopleRoutes } from './pages/people';
import { postRoutes } from './pages/posts';
import { orbitPrivateSeed } from './private-seed';
import { orbitSeed } from './seed';
import { ORBIT_CSS, ORBIT_LOGO } from './styles';

/**
 * Orbit: the sandbox's social network (LinkedIn / X style). Home feed with a compose dialog, likes,
 * comments, reposts, follows, profiles, direct messages and notifications, all stored per tenant.
 */
export const orbitSite: SiteDefinition = {
  slug: 'orbit',
  brand: { name: 'Orbit', css: ORBIT_CSS, logoSvg: ORBIT_LOGO },
  seed: () => [...orbitSeed(), ...orbitPrivateSeed()],
  homePath: '/',
  layout: orbitLayout,
  routes(router, kit) {
    homeRoutes(router, kit);
    postRoutes(router, kit);
    peopleRoutes(router, kit);
    messagingRoutes(router, kit);
    notificationRoutes(router, kit);
  },
};
