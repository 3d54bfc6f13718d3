/**
 * Phrases people use for the sandbox sites' actions, rewritten to the words the catalogue's examples use
 * before the router compares words (action-terms.ts). Applied in order to the lower-cased action in which
 * values are already slot words (`v_person`, `v_text` …, sentence-values.ts), so a frame like "let v_person
 * know that v_text" reads as "message v_person v_text" whoever the person and whatever the text.
 *
 * Three kinds, each a plain rewrite anyone can read:
 *  - opposites: "stop following", "un-follow", "remove my star from" become one negated verb ("unfollow",
 *    "unstar") that never matches its base verb (action-index.ts refuses fuzzy matches across a negation);
 *  - verb frames that carry the value: "let X know that …", "ping X: …", "tell everyone that …";
 *  - everyday paraphrases: phrasal verbs ("bring up", "spin up", "get rid of") and idioms ("how well liked").
 */
const REWRITES: [RegExp, string][] = [
  // ── opposites ──
  [/\b(?:stop|quit|cease)\s+following\b/g, 'unfollow'],
  [/\b(?:do\s+not|don\s+t|dont|no\s+longer)\s+follow\b/g, 'unfollow'],
  [/\b(?:remove|take|drop)\s+(?:my|the|a|your)\s+star\s+(?:from|off)\b/g, 'unstar'],
  [/\bundo\s+(?:my|the|a)\s+([a-z]+)/g, 'un$1'],
  [/\b(?:drop|kick|cut)\s+(v_person)\s+from\b/g, 'remove $1 from'],
  [/\bmy\s+following(?:\s+list)?\b/g, 'the people i follow'],
  [/\b(?:anymore|any\s+more|any\s+longer)\b/g, ' '],

  // ── verb frames that carry the value ──
  // A comment to the people of an issue: "tell the people on issue #3 that …".
  [/\b(?:tell|let)\s+(?:the\s+)?(?:people|folks|everyone|everybody|participants)\s+(?:on|in|of)\s+(?=v_number|issue)/g, 'comment on '],
  // A post to everyone: "let my network know that …", "tell everyone on Orbit that …", "announce that …".
  [
    /\b(?:let|tell)\s+(?:everyone|everybody|the\s+world|my\s+network|my\s+followers|my\s+connections|people)\b(?:\s+(?:on|in)\s+[a-z]+)?(?:\s+know)?/g,
    'post',
  ],
  [/\b(?:announce|broadcast)\b/g, 'post'],
  [/\bput\s+up\b/g, 'post'],
  [/\bpost\s+an?\s+(?:update|status)\b/g, 'post'],
  // A message to one person: "let X know …", "tell / remind / ping X …", "drop X a line", "shoot X a DM".
  [/\blet\s+(v_person)\s+know\b/g, 'message $1'],
  [/\b(?:tell|remind|inform|notify|ping|text|contact)\s+(v_person)\b/g, 'message $1'],
  [/\bsend\s+word\s+to\b/g, 'message'],
  [/\b(?:drop|shoot|send)\s+(v_person)\s+(?:a|an)\s+(?:line|note|dm|message|quick\s+note)\b/g, 'message $1'],
  [/\b(?:write|reach\s+out|get\s+in\s+touch)\s+(?:to|with)\s+(v_person)\b/g, 'message $1'],
  [/\bprivate(?:ly)?\s+(?:note|message)\b|\bprivately\s+message\b/g, 'message'],
  // A direct message is a message ("show my direct messages" reads them, "write a direct message" sends one).
  [/\bdirect\s+(messages?|dms?)\b/g, '$1'],
  [/\b(?:drop|post|put)\s+(?:a|an)\s+(?:comment|reply|note)\b/g, 'leave a comment'],
  [/\badd\s+a\s+note\s+to\b/g, 'add a comment to'],
  // "Post 'LGTM' as a comment on issue #3"
  [/\b(?:post|add|leave|put|write)\s+(v_text)\s+as\s+(?:a\s+|an\s+)?(?:comment|reply)\s+(?:on|to|under)\b/g, 'comment $1 on'],
  [/\bcomment\s+(?:under|below)\b/g, 'comment on'],
  [/\b(?:respond|answer)\b/g, 'reply'],
  // A message someone sent me is one I read: "has anyone sent me a DM?", "did Priya write me?".
  [/\b(?:sent|written|wrote)\s+me\b/g, 'messaged me'],
  [/\b((?:did|does|do|has|have|will)\s+(?:\S+\s+)?)(?:send|write|message|dm)\s+me\b/g, '$1messaged me'],

  // ── everyday paraphrases ──
  // Reading: "bring up", "pull up", "look up", "catch me up on", "give me a rundown of", "tell me".
  // Looking a person up is reading their profile.
  [/\blook\s+up\s+(v_person)/g, 'read $1 profile'],
  [/\b(?:bring|pull|call|look|dig)\s+up\b/g, 'read'],
  [/\bcatch\s+(?:me\s+)?up\s+on\b/g, 'read'],
  [/\b(?:go|look|scroll|read|skim|run)\s+(?:through|over)\b/g, 'read'],
  [/\b(?:would|d)\s+(?:love|like)\s+to\b/g, ' '],
  [/\bgive\s+me\s+(?:a\s+|an\s+)?(?:look\s+at|rundown\s+of|summary\s+of|overview\s+of|list\s+of)\b/g, 'read'],
  [/\b(?:give|tell)\s+me\b/g, 'read'],
  [/\bwhat\s+s\s+(?:new|happening|going\s+on)\s+(?:in|on|at)\b/g, 'read'],
  [/\bany(?:thing)?\s+new\s+(?:in|on|for)\b/g, 'read'],
  [/\bprofile\s+page\b/g, 'profile'],
  // What the people I follow post is my feed, not the list of them.
  [
    /\b(?:the\s+)?(?:people|accounts|users|folks)\s+(?:that\s+|whom?\s+)?i\s+follow\s+(?:are\s+|have\s+|has\s+)?(?:been\s+)?(?:post(?:ing|ed)?|shar(?:e|ing|ed)|writ(?:e|ing)|say(?:ing)?)\b/g,
    'my feed',
  ],
  [/\b(?:the\s+)?posts?\s+(?:from|by|of)\s+(?:the\s+)?(?:people|accounts|users|folks)\s+i\s+follow\b/g, 'my feed'],
  // "the names of my followers" asks for the followers.
  [/\b(?:the\s+)?(?:names|usernames|handles)\s+of\b/g, ' '],
  [/\bhow\s+well[\s-]+liked\b/g, 'how popular'],
  [/\bissue\s+tracker\b/g, 'issues'],
  // What I wrote or published are my posts ("the posts I have written"; not "written in Rust").
  [/\bi\s+(?:have\s+|ve\s+|had\s+)?(?:wrote|written|published)\b/g, 'i post'],
  // What belongs to me is what I own; code repositories are repositories.
  [/\b(?:(?:that|which)\s+)?belong(?:s|ing)?\s+to\s+me\b|\bof\s+mine\b/g, 'i own'],
  [/\bcode\s+(?=repo)/g, ''],
  // Liking, reposting, following.
  [/\b(?:give|leave)\s+(?:a\s+)?like\s+(?:to|on)\b/g, 'like'],
  [/\b(?:heart|upvote|thumbs\s+up)\b/g, 'like'],
  [/\b(?:boost|amplify|reshare|retweet)\b/g, 'repost'],
  [/\b(?:subscribe\s+to|hit\s+follow\s+on|follow\s+back|(?:start|begin)\s+following)\b/g, 'follow'],
  // Stars: "bookmark X with a star", "hit the star button on X", "put a star on X".
  [/\bbookmark(?:ed)?\b(.{0,80}?)\bwith\s+a\s+star\b/g, 'star$1'],
  [/\b(?:hit|press|click|smash)\s+the\s+star\s+(?:button\s+)?(?:on|of|for)\b/g, 'star'],
  [/\bput\s+a\s+star\s+on\b/g, 'star'],
  // Repositories and issues: "spin up", "add a new …", "get rid of", "close out", "mark … as resolved", "file / log / raise".
  [/\bspin\s+up\b/g, 'create'],
  [/\badd\s+(?:a\s+)?new\b/g, 'create new'],
  [/\b(?:get\s+rid\s+of|wipe\s+out|wipe|trash|erase|destroy|nuke)\b/g, 'delete'],
  [/\b(?:shut|close\s+out)\b/g, 'close'],
  [/\bmark\s+(.{0,40}?)\s+as\s+(?:resolved|done|fixed|completed|complete|closed)\b/g, 'close $1'],
  // Filing an issue is opening one ("which tickets did I file?" is "which issues did I open?").
  [/\b(?:file[ds]?|log(?:ged)?|raise[ds]?|report(?:ed|s)?|submit(?:ted|s)?)\b/g, 'open'],
];

export function rewritePhrases(text: string): string {
  // "un-follow", "re-post", "de-list": one word, as the negation prefix means.
  let out = text.replace(/\b(un|re|de|dis)-(?=[a-z])/g, '$1');
  for (const [pattern, replacement] of REWRITES) out = out.replace(pattern, ` ${replacement} `);
  return out;
}
