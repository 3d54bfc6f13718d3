/** Profiles of the sandbox test users on Orbit (their names come from the test-user table). */
export const TEST_USER_PROFILES: Record<
  string,
  { headline: string; location: string; about: string; followers: number; following: number; color: string }
> = {
  user_good: {
    headline: 'Product Manager at Northwind · Payments & onboarding',
    location: 'Amsterdam, Netherlands',
    about: 'I help teams ship onboarding flows people enjoy.',
    followers: 1284,
    following: 391,
    color: '#7c3aed',
  },
  user_mfa: {
    headline: 'Security Engineer at Keystone · Identity & access',
    location: 'Edinburgh, UK',
    about: 'Two factors are better than one.',
    followers: 842,
    following: 210,
    color: '#0891b2',
  },
  user_sms: {
    headline: 'Operations Lead at Rapido Couriers',
    location: 'Porto, Portugal',
    about: 'Logistics, people and spreadsheets.',
    followers: 519,
    following: 288,
    color: '#db2777',
  },
  user_locked: {
    headline: 'Account Executive at Vaultline',
    location: 'Denver, CO',
    about: '',
    followers: 233,
    following: 150,
    color: '#64748b',
  },
  user_captcha: {
    headline: 'Growth Marketer at Brightside Apps',
    location: 'Vancouver, Canada',
    about: 'Experiments all the way down.',
    followers: 1105,
    following: 640,
    color: '#ea580c',
  },
  user_expiring: {
    headline: 'Contract Data Analyst',
    location: 'Cape Town, South Africa',
    about: 'Available for short projects.',
    followers: 97,
    following: 120,
    color: '#16a34a',
  },
  user_stepup: {
    headline: 'Finance Controller at Ledgerly',
    location: 'Dublin, Ireland',
    about: 'Double-checks everything, including who is sending messages from my account.',
    followers: 318,
    following: 144,
    color: '#b45309',
  },
};
