import type { SeedDoc } from '../../../sandbox/kit/site';
import { SEEDED_TEST_USERS } from '../../../sandbox/test-users';
import type { Comment, Follow, Message, Notification, Person, Post, Visibility } from './model';

export const SEED_PEOPLE: Person[] = [
  {
    username: 'priya-nair',
    name: 'Priya Nair',
    headline: 'Head of Data Platform at Lumen Health · Building reliable pipelines',
    location: 'London, UK',
    about: 'Data platforms, data contracts and the people who run them. Ex-Monzo.',
    followers: 4821,
    following: 312,
    color: '#0ea5e9',
    followsBack: true,
    likesComments: true,
  },
  {
    username: 'marcus-webb',
    name: 'Marcus Webb',
    headline: 'Founder & CEO at Tidewater Robotics',
    location: 'Boston, MA',
    about: 'Building autonomous boats for ocean research.',
    followers: 12873,
    following: 540,
    color: '#f59e0b',
    likesComments: true,
  },
  {
    username: 'jonas-berg',
    name: 'Jonas Berg',
    headline: 'Staff Engineer at Fjord Payments · Rust, distributed systems',
    location: 'Stockholm, Sweden',
    about: 'Consensus, queues and coffee.',
    followers: 2310,
    following: 410,
    color: '#10b981',
  },
  {
    username: 'lena-fischer',
    name: 'Lena Fischer',
    headline: 'Product Designer at Kanso · Design systems & accessibility',
    location: 'Berlin, Germany',
    about: 'Accessible by default.',
    followers: 1932,
    following: 388,
    color: '#ef4444',
    followsBack: true,
    likesComments: true,
  },
  {
    username: 'amara-okafor',
    name: 'Amara Okafor',
    headline: 'VP Marketing at Brightloop · ex-Unilever',
    location: 'Lagos, Nigeria',
    about: 'Brands that people remember.',
    followers: 6120,
    following: 902,
    color: '#8b5cf6',
  },
  {
    username: 'diego-ramirez',
    name: 'Diego Ramírez',
    headline: 'Engineering Manager at Atlas Freight',
    location: 'Mexico City, Mexico',
    about: 'Managing humans who manage computers.',
    followers: 1408,
    following: 623,
    color: '#14b8a6',
    followsBack: true,
  },
  {
    username: 'hannah-cole',
    name: 'Hannah Cole',
    headline: "Talent Partner at Northwind Ventures · We're hiring!",
    location: 'New York, NY',
    about: 'Connecting great people with great startups.',
    followers: 8750,
    following: 1990,
    color: '#e11d48',
  },
  {
    username: 'kenji-watanabe',
    name: 'Kenji Watanabe',
    headline: 'ML Researcher at Sakura Labs · Speech & multimodal models',
    location: 'Tokyo, Japan',
    about: 'Papers, code, and occasionally sleep.',
    followers: 3304,
    following: 251,
    color: '#6366f1',
  },
  {
    username: 'sofia-rossi',
    name: 'Sofia Rossi',
    headline: 'Chief of Staff at Verdant Energy',
    location: 'Milan, Italy',
    about: 'Operating cadence nerd.',
    followers: 2010,
    following: 700,
    color: '#84cc16',
  },
  {
    username: 'omar-haddad',
    name: 'Omar Haddad',
    headline: 'Security Engineer · OSCP · Cloud security at Cedar Bank',
    location: 'Dubai, UAE',
    about: 'Breaking things so attackers cannot.',
    followers: 1577,
    following: 342,
    color: '#0f766e',
  },
  {
    username: 'ella-thompson',
    name: 'Ella Thompson',
    headline: 'Customer Success Lead at Quill CRM',
    location: 'Sydney, Australia',
    about: 'Customers first, always.',
    followers: 980,
    following: 455,
    color: '#f97316',
  },
  {
    username: 'noah-kim',
    name: 'Noah Kim',
    headline: 'Frontend Engineer at Pixelcraft · TypeScript & React',
    location: 'Seoul, South Korea',
    about: 'Shipping pixels since 2015.',
    followers: 2140,
    following: 510,
    color: '#3b82f6',
    followsBack: true,
  },
  {
    username: 'zara-ahmed',
    name: 'Zara Ahmed',
    headline: 'Product Manager at Harbor Health · Patient experience',
    location: 'Toronto, Canada',
    about: 'Healthcare that feels human.',
    followers: 1760,
    following: 480,
    color: '#d946ef',
  },
  {
    username: 'lucas-martin',
    name: 'Lucas Martin',
    headline: 'Data Scientist at Boulangerie.io · Forecasting & pricing',
    location: 'Paris, France',
    about: 'Forecasting croissants, mostly.',
    followers: 1220,
    following: 300,
    color: '#a16207',
  },
  {
    username: 'grace-liu',
    name: 'Grace Liu',
    headline: 'UX Researcher at Meridian Bank',
    location: 'Singapore',
    about: 'Listening for a living.',
    followers: 1105,
    following: 296,
    color: '#be123c',
  },
  {
    username: 'tom-okoro',
    name: 'Tom Okoro',
    headline: 'Sales Director EMEA at Cloudberry',
    location: 'Dublin, Ireland',
    about: 'Quota is a team sport.',
    followers: 4402,
    following: 1230,
    color: '#0284c7',
  },
  {
    username: 'ines-silva',
    name: 'Inês Silva',
    headline: 'DevRel at Orbitstack · Speaker · Open source',
    location: 'Lisbon, Portugal',
    about: 'Talks, docs, and demos that work.',
    followers: 5300,
    following: 860,
    color: '#9333ea',
  },
  {
    username: 'ben-carter',
    name: 'Ben Carter',
    headline: 'CFO at Greenfield Logistics',
    location: 'Chicago, IL',
    about: 'Numbers tell stories.',
    followers: 3021,
    following: 210,
    color: '#166534',
  },
  {
    username: 'maya-patel',
    name: 'Maya Patel',
    headline: 'Recruiter at Helix Biotech · Hiring scientists & engineers',
    location: 'San Diego, CA',
    about: 'Open roles in my featured section.',
    followers: 2630,
    following: 2100,
    color: '#c2410c',
    followsBack: true,
  },
  {
    username: 'felix-wagner',
    name: 'Felix Wagner',
    headline: 'SRE at Alpine Cloud · On-call survivor',
    location: 'Zurich, Switzerland',
    about: 'Five nines, one pager.',
    followers: 1340,
    following: 402,
    color: '#475569',
  },
  {
    username: 'chloe-dubois',
    name: 'Chloé Dubois',
    headline: 'Brand Strategist · Freelance',
    location: 'Montréal, Canada',
    about: 'Positioning for small brands.',
    followers: 890,
    following: 640,
    color: '#db2777',
  },
  {
    username: 'ravi-shah',
    name: 'Ravi Shah',
    headline: 'Co-founder at Ledgerly (YC W25)',
    location: 'San Francisco, CA',
    about: 'Accounting that closes itself.',
    followers: 7720,
    following: 990,
    color: '#059669',
  },
  {
    username: 'anna-kowalski',
    name: 'Anna Kowalski',
    headline: 'QA Lead at Vistula Games',
    location: 'Kraków, Poland',
    about: 'I find the bugs before players do.',
    followers: 760,
    following: 350,
    color: '#7c2d12',
  },
  {
    username: 'sam-oduya',
    name: 'Sam Oduya',
    headline: 'Student at University of Nairobi · Aspiring data analyst',
    location: 'Nairobi, Kenya',
    about: 'Learning SQL one query at a time.',
    followers: 210,
    following: 480,
    color: '#2563eb',
    followsBack: true,
  },
];

type SeedPost = [author: string, text: string, ageMinutes: number, likes: number, reposts: number, visibility?: Visibility];

/** Seeded posts, newest first. Keys are stable so comments and notifications can point at them. */
const SEED_POSTS: SeedPost[] = [
  [
    'priya-nair',
    'We moved our nightly batch to incremental models this quarter. Warehouse costs down 38%, and nobody gets paged at 3am anymore.\n\nThe trick was boring: data contracts with every producing team, checked in CI.',
    14,
    212,
    18,
  ],
  [
    'marcus-webb',
    "Tidewater's third boat just finished a 40-day survey in the North Atlantic without a single human intervention. Incredibly proud of this team.",
    52,
    1432,
    96,
  ],
  [
    'lena-fischer',
    'Hot take: if your design system does not ship focus styles, it is not finished. Keyboard users are users.',
    95,
    388,
    41,
  ],
  [
    'hannah-cole',
    "We're hiring founding engineers at three portfolio companies (fintech, climate, dev tools). Remote-friendly within EU time zones. DM me!",
    140,
    96,
    22,
  ],
  [
    'priya-nair',
    'Sharing with my network first: I am speaking at DataOps Summit in May about running a data platform with a team of four. Slides will be here afterwards.',
    180,
    74,
    3,
    'connections',
  ],
  [
    'kenji-watanabe',
    'Our new paper on streaming speech recognition is out. 23% lower latency at the same word error rate. Code and weights are open.',
    260,
    540,
    77,
  ],
  ['jonas-berg', 'Idempotency keys are the seatbelt of payment APIs. You will not notice them until the day they save you.', 330, 302, 29],
  [
    'amara-okafor',
    'Brand is what people say about you when you are not in the room. Marketing is making sure they have something true to say.',
    420,
    911,
    64,
  ],
  [
    'diego-ramirez',
    'Ran my first blameless postmortem as a manager today. The most useful sentence: "What made this the reasonable thing to do at the time?"',
    510,
    233,
    12,
  ],
  [
    'noah-kim',
    'Replaced 4,000 lines of custom dropdown code with the native <dialog> and a listbox pattern. Accessibility went up, bundle size went down.',
    640,
    187,
    15,
  ],
  [
    'marcus-webb',
    'Board update for friends of Tidewater: we closed our Series B. Details in the press release tomorrow — thank you for believing early.',
    720,
    305,
    0,
    'connections',
  ],
  [
    'sofia-rossi',
    'Weekly business reviews do not need slides. A shared doc, read silently for ten minutes, then discussion. Meetings got 40% shorter.',
    860,
    145,
    9,
  ],
  ['omar-haddad', 'Reminder: rotate the keys you pasted into that Slack channel in 2021. Yes, those ones.', 990, 410, 58],
  [
    'ines-silva',
    'Tip for conference talks: record your demo as a video backup. Wi-Fi at venues has a personal grudge against live coding.',
    1150,
    264,
    20,
  ],
  [
    'zara-ahmed',
    'We cut our clinic check-in from 11 minutes to 3 by removing fields nobody read. Ask "who uses this?" for every input.',
    1320,
    176,
    14,
  ],
  [
    'ravi-shah',
    'Ledgerly is now closing the books for 500 companies. Month-end close in hours, not weeks. Thank you, customers, for the brutal feedback.',
    1500,
    702,
    45,
  ],
  [
    'ella-thompson',
    'A customer told us our onboarding email was "the first one I actually read." It was three sentences long. Brevity wins.',
    1700,
    98,
    5,
  ],
  [
    'lucas-martin',
    'Forecasting tip: before you reach for a neural net, beat the seasonal naive baseline. Most models do not.',
    1900,
    321,
    31,
  ],
  [
    'tom-okoro',
    'Closed our biggest EMEA deal ever with a team of five. The secret? We listened for 45 minutes before presenting anything.',
    2200,
    188,
    7,
  ],
  ['grace-liu', 'Five interviews uncover most usability problems. The sixth interview is for convincing your stakeholders.', 2600, 254, 19],
  [
    'felix-wagner',
    'Our on-call rotation got calmer after one rule: every page must link to a runbook, or the alert gets deleted.',
    3000,
    367,
    33,
  ],
  [
    'maya-patel',
    'Helix is hiring 12 scientists and engineers this spring. If you are switching from academia, I would love to talk.',
    3500,
    142,
    26,
  ],
  ['ben-carter', 'Cash is a fact, profit is an opinion. Build the 13-week cash forecast before you need it.', 4100, 498, 52],
  ['chloe-dubois', 'Small brands: pick one channel and be great at it for a year before adding another.', 4800, 77, 4],
  [
    'anna-kowalski',
    'Shipped our game with zero crash bugs at launch. QA was involved from the first design review, not the last sprint.',
    5600,
    213,
    11,
  ],
  ['sam-oduya', 'Finished my first data analysis project: matatu routes and commute times in Nairobi. Feedback welcome!', 6500, 64, 2],
  [
    'kenji-watanabe',
    'Reading group this week: attention sinks and why long-context models keep looking at the first token.',
    7400,
    156,
    8,
    'connections',
  ],
  [
    'jonas-berg',
    'Rust tip: make invalid states unrepresentable. Our payment state machine has had zero "impossible" bugs since.',
    8600,
    276,
    21,
  ],
  ['amara-okafor', 'Grateful to speak at Lagos Business Week. Nigerian brands are ready for the world stage.', 9800, 640, 38],
  ['priya-nair', 'Data quality is a product. It has users, a roadmap and an on-call rotation, or it does not exist.', 11200, 389, 27],
  ['ines-silva', 'Open source maintainers: it is okay to close issues. A clear "no" is kinder than a year of silence.', 13000, 822, 90],
  [
    'diego-ramirez',
    'One year as an engineering manager. I write less code, and my team ships more of it. Strange job, great job.',
    15000,
    301,
    10,
  ],
  [
    'hannah-cole',
    'Candidates: the best question to ask at the end of an interview is "What would make someone fail in this role?"',
    17500,
    1020,
    88,
  ],
  ['noah-kim', 'CSS container queries are the best thing to happen to component libraries since flexbox.', 20000, 206, 13],
];

const seedKey = (n: number) => `7212${String(100000000000000 + n)}`;
export const userSeedKey = (i: number) => `7213${String(100000000000000 + i)}`;

const SEED_COMMENTS: [postIndex: number, author: string, text: string, ageMinutes: number][] = [
  [0, 'jonas-berg', 'Data contracts in CI is the unsung hero here. Did producers push back at first?', 10],
  [0, 'lucas-martin', 'Congrats! What did you use for the incremental models?', 8],
  [1, 'kenji-watanabe', 'Forty days unattended is wild. Congratulations to the whole team!', 40],
  [1, 'ravi-shah', 'Incredible milestone, Marcus.', 30],
  [2, 'noah-kim', '100%. Focus rings are not a bug.', 80],
  [2, 'grace-liu', 'Our research backs this up: keyboard users are often power users.', 70],
  [5, 'lucas-martin', 'Reading it tonight. Is there a model card?', 200],
  [6, 'felix-wagner', 'Learned this the hard way during a retry storm.', 300],
  [8, 'sofia-rossi', 'Stealing that question for our next review.', 480],
  [9, 'lena-fischer', 'Love this. Native elements are so underrated.', 600],
  [12, 'diego-ramirez', 'Going to check our channels right now…', 950],
  [15, 'ben-carter', 'Congrats Ravi — close in hours is the dream.', 1400],
  [20, 'jonas-berg', 'Runbook or delete is a great rule.', 2900],
  [22, 'ravi-shah', 'Every founder needs to hear this.', 4000],
];

const USER_POST_TEXTS = [
  'Excited to share that our team just launched one-click onboarding. Grateful to everyone who tested the early versions!',
  'Passkeys are rolling out to all of our customers this month. Fewer passwords, fewer phishing emails, happier people.',
  'Same-day delivery in three new cities starting Monday. Huge thanks to our drivers and dispatch team.',
  'Ten years in sales taught me one thing: the follow-up is where deals are won.',
  'Our A/B test on the signup page had a surprising winner: the version with fewer words.',
  'Just wrapped up a three-month analytics project. Looking for my next contract — referrals welcome!',
];

/** Everything a fresh tenant starts with. */
export function orbitSeed(): SeedDoc[] {
  const docs: SeedDoc[] = [];
  for (const p of SEED_PEOPLE) docs.push({ kind: 'person', data: { ...p }, ageMinutes: 60 * 24 * 400 });

  SEED_POSTS.forEach(([author, text, age, likes, reposts, visibility], i) => {
    const post: Post = {
      key: seedKey(i),
      author,
      text,
      visibility: visibility ?? 'public',
      likes: [],
      baseLikes: likes,
      baseReposts: reposts,
      baseComments: 0,
    };
    docs.push({ kind: 'post', data: post, ageMinutes: age });
  });
  // One repost in the seed, so reposts look like they do after a person reposts.
  const repost: Post = {
    key: seedKey(90),
    author: 'diego-ramirez',
    text: '',
    visibility: 'public',
    likes: [],
    baseLikes: 0,
    baseReposts: 0,
    repostOf: seedKey(1),
  };
  docs.push({ kind: 'post', data: repost, ageMinutes: 30 });

  for (const [i, author, text, age] of SEED_COMMENTS) {
    const c: Comment = { postKey: seedKey(i), author, text };
    docs.push({ kind: 'comment', data: c, ageMinutes: age });
  }

  SEEDED_TEST_USERS.forEach((u, i) => {
    const first = u.displayName.split(' ')[0];
    const key = userSeedKey(i);
    const post: Post = {
      key,
      author: u.username,
      text: USER_POST_TEXTS[i % USER_POST_TEXTS.length],
      visibility: 'public',
      likes: ['priya-nair'],
      baseLikes: 23 + i * 7,
      baseReposts: 1,
      baseComments: 0,
    };
    docs.push({ kind: 'post', data: post, ageMinutes: 60 * 24 * 3 + i * 37 });
    docs.push({
      kind: 'comment',
      data: { postKey: key, author: 'marcus-webb', text: `Congratulations, ${first}! Well deserved.` } satisfies Comment,
      ageMinutes: 60 * 24 + i,
    });

    const follows: Follow[] = [
      { follower: u.username, followee: 'priya-nair' },
      { follower: u.username, followee: 'marcus-webb' },
      { follower: 'jonas-berg', followee: u.username },
    ];
    for (const f of follows) docs.push({ kind: 'follow', data: f, ageMinutes: 60 * 24 * 30 });

    const messages: [from: string, to: string, text: string, age: number, read: boolean][] = [
      ['jonas-berg', u.username, `Hi ${first}, great meeting you at the meetup last week!`, 60 * 26, true],
      [u.username, 'jonas-berg', 'Likewise, Jonas! Let me know when you are in town again.', 60 * 25, true],
      ['priya-nair', u.username, `Hey ${first} — are you free for a quick call about the data platform role?`, 60 * 5, true],
      [u.username, 'priya-nair', 'Sure, Thursday afternoon works for me.', 60 * 4, true],
      ['priya-nair', u.username, 'Perfect, I will send an invite for 3pm. Talk soon!', 45, false],
    ];
    for (const [from, to, text, age, read] of messages)
      docs.push({ kind: 'message', data: { from, to, text, read } satisfies Message, ageMinutes: age });

    const notes: [Omit<Notification, 'to'>, number][] = [
      [{ actor: 'priya-nair', type: 'like', text: 'Priya Nair liked your post', link: `/posts/${key}`, read: false }, 35],
      [
        {
          actor: 'marcus-webb',
          type: 'comment',
          text: `Marcus Webb commented on your post: "Congratulations, ${first}! Well deserved."`,
          link: `/posts/${key}`,
          read: false,
        },
        60 * 24 + i,
      ],
      [{ actor: 'jonas-berg', type: 'follow', text: 'Jonas Berg started following you', link: '/in/jonas-berg', read: true }, 60 * 24 * 2],
      [
        {
          actor: 'hannah-cole',
          type: 'view',
          text: 'Hannah Cole and 11 others viewed your profile this week',
          link: '/in/hannah-cole',
          read: true,
        },
        60 * 24 * 4,
      ],
    ];
    for (const [n, age] of notes)
      docs.push({ kind: 'notification', data: { ...n, to: u.username } satisfies Notification, ageMinutes: age });
  });
  return docs;
}
