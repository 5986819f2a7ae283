import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { resolveSettings } from '../../src/cli/coordinator-settings.ts';

describe('integration mail settings of coordinator serve and start', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gantry-mail-settings-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'config.toml');
  writeFileSync(file, '[coordinator]\nmail_from = "ci@example.com"\nsmtp_host = "mail.example.com"\nsmtp_port = 587\nsmtp_user = "gantry"\nsmtp_password = "from-file"\n');

  it('reads the mail_from and smtp_* keys of the config file', () => {
    const { mail } = resolveSettings({ config: file }, {}, '127.0.0.1');
    assert.deepEqual(mail, { from: 'ci@example.com', smtp: { host: 'mail.example.com', port: 587, user: 'gantry', password: 'from-file', secure: false } });
  });

  it('lets GANTRY_MAIL_FROM and GANTRY_SMTP_* win over the file, with TLS from the start on port 465', () => {
    const env = { GANTRY_MAIL_FROM: 'env@example.com', GANTRY_SMTP_HOST: 'smtp.internal', GANTRY_SMTP_PORT: '465', GANTRY_SMTP_PASSWORD: 'from-env' };
    const { mail } = resolveSettings({ config: file }, env, '127.0.0.1');
    assert.deepEqual(mail, { from: 'env@example.com', smtp: { host: 'smtp.internal', port: 465, user: 'gantry', password: 'from-env', secure: true } });
  });

  it('keeps the maildir without an SMTP host, and refuses a port that is not one', () => {
    assert.deepEqual(resolveSettings({}, {}, '127.0.0.1').mail, { from: undefined });
    assert.throws(() => resolveSettings({}, { GANTRY_SMTP_HOST: 'h', GANTRY_SMTP_PORT: '70000' }, '127.0.0.1'), { message: 'invalid SMTP port: 70000' });
  });
});
