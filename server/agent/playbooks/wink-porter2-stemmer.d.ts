/** wink-porter2-stemmer ships no types: one function, a word in, its Porter2 (Snowball English) stem out. */
declare module 'wink-porter2-stemmer' {
  function stem(word: string): string;
  export = stem;
}
