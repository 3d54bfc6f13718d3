// @ts-check
/** @type {import('prettier').Config} */
module.exports = {
  printWidth: 140,
  singleQuote: true,
  trailingComma: 'all',
  semi: true,
  arrowParens: 'always',
  embeddedLanguageFormatting: 'off',
  // TypeScript through Babel's parser: the same output for every file here, and a quarter less CPU than the default
  // (typescript-estree) in `npm test`'s format check on a fresh clone, where no cache helps (16.4 s against 12.1 s).
  overrides: [{ files: ['*.ts', '*.mts', '*.cts', '*.tsx'], options: { parser: 'babel-ts' } }],
};
