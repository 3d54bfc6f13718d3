import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { CONFIG_VARIABLES, ConfigError, loadConfig, SECRET_VARIABLES } from '../../server/config';

/** Every secret may come from a file (X_FILE), as Docker and Kubernetes mount secrets; AGENTLINK_SIGNUP's defaults. */
describe('configuration: secrets from files, sign-up mode', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-config-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: string) => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, content);
    return p;
  };

  it('lists an X_FILE variant of every secret variable', () => {
    for (const name of SECRET_VARIABLES) expect(CONFIG_VARIABLES).toContain(`${name}_FILE`);
  });

  it('reads each X_FILE into X, without the final line break', () => {
    const config = loadConfig({
      DATABASE_URL_FILE: file('db', 'postgres://u:p4ss@db:5432/a\n'),
      AGENTLINK_ENCRYPTION_KEY_FILE: file('key', 'a2V5LWtleS1rZXkta2V5LWtleS1rZXkta2V5LWtleS0=\r\n'),
      AGENTLINK_MODEL_API_KEY_FILE: file('model', 'sk-model'),
      AGENTLINK_METRICS_TOKEN_FILE: file('metrics', 'metrics-token-0123456789\n'),
    });
    expect(config.database).toEqual({ type: 'postgres', url: 'postgres://u:p4ss@db:5432/a' });
    expect(config.encryptionKey).toBe('a2V5LWtleS1rZXkta2V5LWtleS1rZXkta2V5LWtleS0=');
    expect(config.metricsToken).toBe('metrics-token-0123456789');
    const withModel = loadConfig({
      AGENTLINK_MODEL_BASE_URL: 'http://127.0.0.1:1/v1',
      AGENTLINK_MODEL: 'm',
      AGENTLINK_MODEL_API_KEY_FILE: file('model2', 'sk-model\n'),
    });
    expect(withModel.model?.apiKey).toBe('sk-model');
  });

  it('validates a value read from a file like one set directly', () => {
    expect(() => loadConfig({ AGENTLINK_METRICS_TOKEN_FILE: file('short', 'short\n') })).toThrow(/AGENTLINK_METRICS_TOKEN: .*at least 16/);
  });

  it('refuses X and X_FILE together, and a file that cannot be read, naming the file but never a value', () => {
    const both = () => loadConfig({ AGENTLINK_METRICS_TOKEN: 'x'.repeat(20), AGENTLINK_METRICS_TOKEN_FILE: file('m', 'y'.repeat(20)) });
    expect(both).toThrow(ConfigError);
    expect(both).toThrow(/set only one of AGENTLINK_METRICS_TOKEN and AGENTLINK_METRICS_TOKEN_FILE/);
    const missing = path.join(dir, 'nope');
    expect(() => loadConfig({ DATABASE_URL_FILE: missing })).toThrow(`DATABASE_URL_FILE: ${missing} cannot be read (ENOENT)`);
    try {
      loadConfig({ DATABASE_URL_FILE: file('bad', 'mysql://root:hunter2@db/x') });
      throw new Error('accepted');
    } catch (err) {
      expect(String(err)).toMatch(/DATABASE_URL/);
      expect(String(err)).not.toContain('hunter2');
    }
  });

  it('closes sign-up by default in production, opens it otherwise, and takes AGENTLINK_SIGNUP as given', () => {
    expect(loadConfig({ NODE_ENV: 'production' }).signup).toBe('closed');
    expect(loadConfig({}).signup).toBe('open');
    expect(loadConfig({ NODE_ENV: 'test' }).signup).toBe('open');
    expect(loadConfig({ NODE_ENV: 'production', AGENTLINK_SIGNUP: 'invite' }).signup).toBe('invite');
    expect(() => loadConfig({ AGENTLINK_SIGNUP: 'everyone' })).toThrow(/AGENTLINK_SIGNUP/);
  });

  it('takes the sign-in step budget in seconds (20 by default), within 2 s and 5 minutes', () => {
    expect(loadConfig({}).live.loginStepSeconds).toBe(20);
    const config = loadConfig({ AGENTLINK_LOGIN_STEP_SECONDS: '45' });
    expect(config.live.loginStepSeconds).toBe(45);
    expect(() => loadConfig({ AGENTLINK_LOGIN_STEP_SECONDS: '1' })).toThrow(/AGENTLINK_LOGIN_STEP_SECONDS/);
    expect(() => loadConfig({ AGENTLINK_LOGIN_STEP_SECONDS: '301' })).toThrow(/AGENTLINK_LOGIN_STEP_SECONDS/);
  });
});
