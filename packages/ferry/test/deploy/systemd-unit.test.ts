// deploy/systemd/ferry.service as systemd reads it: `systemd-analyze verify` accepts it without a remark, and
// `systemd-analyze security --offline` rates its exposure (0 best, 10 worst) at most 2, "OK"; the settings the
// going-live page promises are in it. Skipped, saying why, where systemd-analyze is not installed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const unit = fileURLToPath(new URL('../../deploy/systemd/ferry.service', import.meta.url));
const exec = promisify(execFile);

async function analyze(...args: string[]): Promise<{ code: number; stdout: string; stderr: string } | undefined> {
  try {
    const { stdout, stderr } = await exec('systemd-analyze', args, { env: { ...process.env, SYSTEMD_COLORS: '0', SYSTEMD_PAGER: '' } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number | string; stdout: string; stderr: string };
    if (failed.code === 'ENOENT') return undefined;
    return { code: Number(failed.code), stdout: failed.stdout, stderr: failed.stderr };
  }
}

test('the unit runs Ferry as its own user, restarts it on failure but a configuration error, and is hardened', async (t) => {
  const text = readFileSync(unit, 'utf8');
  for (const line of [
    'User=ferry',
    'ExecStart=/usr/bin/node /opt/ferry/packages/ferry/bin/ferry.mjs start --config /etc/ferry/ferry.toml',
    'Restart=on-failure',
    'RestartPreventExitStatus=2',
    'NoNewPrivileges=yes',
    'ProtectSystem=strict',
    'ProtectHome=yes',
    'StateDirectory=ferry',
    'LoadCredential=passphrase:/etc/ferry/passphrase',
    'Environment=FERRY_PASSPHRASE_FILE=%d/passphrase',
  ]) {
    assert.ok(text.split('\n').includes(line), `${line} is missing`);
  }

  const verify = await analyze('verify', unit);
  if (verify === undefined) return t.skip('systemd-analyze is not installed');
  assert.equal(verify.code, 0, verify.stderr);
  assert.equal(verify.stderr.trim(), '', 'systemd has no remark on the unit');

  const security = await analyze('security', '--offline=yes', unit);
  assert.ok(security !== undefined);
  const rating = /Overall exposure level for ferry\.service: ([\d.]+) (\w+)/.exec(security.stdout);
  assert.ok(rating, security.stdout + security.stderr);
  t.diagnostic(`systemd-analyze security: exposure ${rating[1]} ${rating[2]}`);
  assert.ok(Number(rating[1]) <= 2, `exposure ${rating[1]}`);
  assert.equal(rating[2], 'OK');
});
