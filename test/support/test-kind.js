const fs = require('node:fs');

/** The kind of a test file, by what it starts: a browser, a child process, PostgreSQL (each store), or the API alone. */
function kindOf(file) {
  let source = '';
  try {
    source = fs.readFileSync(file, 'utf8');
  } catch {
    return 'api';
  }
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
