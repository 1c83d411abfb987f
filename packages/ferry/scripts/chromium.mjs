#!/usr/bin/env node
// Prepares headless Chromium for the browser tests (test/browser/): the SDK must be shown running in a real browser,
// and the only browser this workplace can get is Debian's `chromium` package (a test tool's own browser download
// cannot reach its host). Finds FERRY_CHROMIUM or /usr/bin/chromium; without one, installs the package with apt-get
// (once per machine: the system's package is the cache, a second run finds it) and prints `chromium=<path>`. When it
// cannot be installed (not root, no apt-get, no package source) it prints `skip=<why>` and exits 0, so the browser
// tests skip saying why instead of failing on a machine that cannot have a browser.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

function say(line) {
  process.stdout.write(line + '\n');
}

function found() {
  if (process.env.FERRY_CHROMIUM) return existsSync(process.env.FERRY_CHROMIUM) ? process.env.FERRY_CHROMIUM : undefined;
  return CANDIDATES.find((path) => existsSync(path));
}

// Several test runs may share a machine: wait for another apt-get's lock instead of failing on it.
const APT = ['-o', 'DPkg::Lock::Timeout=600', '-o', 'Acquire::Retries=3'];

function apt(args) {
  const run = spawnSync('apt-get', [...APT, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return { ok: run.status === 0, output: `${run.stdout ?? ''}${run.stderr ?? ''}`, error: run.error };
}

function install() {
  if (typeof process.getuid === 'function' && process.getuid() !== 0) return `Chromium is not installed and this user is not root (install Debian's chromium, or set FERRY_CHROMIUM)`;
  process.stderr.write('chromium: installing Debian package chromium (once per machine)\n');
  let attempt = apt(['install', '-y', '--no-install-recommends', 'chromium']);
  if (attempt.error) return `Chromium is not installed and apt-get cannot run (${attempt.error.message}); set FERRY_CHROMIUM`;
  // A machine whose package lists are missing or stale cannot locate the package or fetch its old version.
  if (!attempt.ok) {
    const update = apt(['update']);
    if (!update.ok) return `apt-get update failed: ${update.output.trim().split('\n').slice(-3).join(' / ')}`;
    attempt = apt(['install', '-y', '--no-install-recommends', 'chromium']);
  }
  if (!attempt.ok) return `apt-get install chromium failed: ${attempt.output.trim().split('\n').slice(-3).join(' / ')}`;
  return undefined;
}

function main() {
  let path = found();
  if (!path) {
    const why = install();
    path = found();
    if (!path) {
      say(`skip=${why ?? 'apt-get installed chromium but no executable was found at ' + CANDIDATES.join(' or ')}`);
      return 0;
    }
  }
  const version = spawnSync(path, ['--version'], { encoding: 'utf8' });
  if (version.status !== 0) {
    process.stderr.write(`chromium: ${path} --version failed: ${(version.stderr || version.stdout || '').trim()}\n`);
    return 1;
  }
  process.stderr.write(`chromium: ${version.stdout.trim()}\n`);
  say(`chromium=${path}`);
  return 0;
}

process.exit(main());
