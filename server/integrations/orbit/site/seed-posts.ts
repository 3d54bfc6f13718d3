import type { SeedDoc } from '../../../sandbox/kit/site';
import type { Comment, Post, Visibility } from './model';

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

/** The seeded posts (and one repost), then their comments. */
export function postDocs(docs: SeedDoc[]): void {
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
}
