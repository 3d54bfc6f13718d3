import fs from 'node:fs';
import path from 'node:path';

/**
 * The version of the agentlink package (`agentlink --version`, the MCP server's info), read from its package.json:
 * found by walking up from this file, which sits in server/ in a checkout and in dist/server/ in a build.
 */
function readVersion(): string {
  for (let dir = __dirname, i = 0; i < 4; dir = path.dirname(dir), i++) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'agentlink' && pkg.version) return pkg.version;
    } catch {
      // not here: one level up
    }
  }
  return '0.0.0';
}

export const AGENTLINK_VERSION = readVersion();
