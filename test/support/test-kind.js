const fs = require('node:fs');
const path = require('node:path');

/** A file's source, with the sources of the test's own helpers it imports (`./x-support`, `../y-fixtures` …). */
function sourceOf(file) {
  let source = '';
  try {
    source = fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
  const helpers = [...source.matchAll(/from '(\.{1,2}\/[^']*-(?:support|fixtures|rig|suite))'/g)].map((m) => m[1]);
  for (const helper of helpers) {
    for (const ext of ['.ts', '.tsx']) {
      try {
        source += fs.readFileSync(path.resolve(path.dirname(file), helper + ext), 'utf8');
        break;
      } catch {
        // not this extension
      }
    }
  }
  return source;
}

/**
 * The kind of a test file, by what it starts (itself or through its helpers): a browser, a child process, PostgreSQL
 * (each store), or the API alone.
 */
function kindOf(file) {
  const source = sourceOf(file);
  if (
    /\.browser\.test\.tsx?$/.test(file) ||
    /startBrowser|createLiveServer|startLiveServer|from 'playwright-core'|launchBrowser/.test(source)
  ) {
    return 'browser';
  }
  if (/from 'node:child_process'|agentlink-process|\.multi-process\./.test(file + source)) return 'process';
  if (/describeEachStore|'postgres'/.test(source)) return 'postgres';
  return 'api';
}

module.exports = { kindOf };
