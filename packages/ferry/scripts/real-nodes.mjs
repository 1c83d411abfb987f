#!/usr/bin/env node
// Prepares the real Core Lightning daemons for the real-node tests (test/real-nodes/): finds the tarball of
// lightningd built from Core Lightning's source (in ../shared/real-nodes/ beside the checkout, or the directory an
// operator names in FERRY_REAL_NODES_DIR), unpacks it once into a cache outside the repository's tracked files
// (~/.cache/ferry/real-nodes/<sha256 prefix>/, or FERRY_REAL_NODES_CACHE), installs its runtime library libsodium23
// with apt-get when the dynamic linker cannot find it, and prints `lightningd=<path>`. With no tarball it prints
// `skip=<why>` and exits 0, so the tests skip saying why; a tarball that cannot be made to run exits 1.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..'); // the checkout's root
const TARBALL = /^core-lightning-.*\.tar\.(xz|gz)$/;

function say(line) {
  process.stdout.write(line + '\n');
}

function findTarball() {
  const dirs = process.env.FERRY_REAL_NODES_DIR
    ? [resolve(process.env.FERRY_REAL_NODES_DIR)]
    : [resolve(repo, '../shared/real-nodes'), resolve(repo, '../../shared/real-nodes')];
  for (const dir of dirs) {
    if (!existsSync(dir)) continue;
    const name = readdirSync(dir).filter((file) => TARBALL.test(file)).sort().at(-1);
    if (name) return join(dir, name);
  }
  return { missing: dirs };
}

function missingLibraries(binary) {
  const ldd = spawnSync('ldd', [binary], { encoding: 'utf8' });
  return (ldd.stdout ?? '').split('\n').filter((line) => line.includes('not found')).map((line) => line.trim().split(/\s+/)[0]);
}

function main() {
  const tarball = findTarball();
  if (typeof tarball !== 'string') {
    say(`skip=no Core Lightning tarball (core-lightning-*.tar.xz) in ${tarball.missing.join(' or ')}; set FERRY_REAL_NODES_DIR to a directory holding one`);
    return 0;
  }
  const sha = createHash('sha256').update(readFileSync(tarball)).digest('hex');
  const cacheRoot = process.env.FERRY_REAL_NODES_CACHE ?? join(homedir(), '.cache', 'ferry', 'real-nodes');
  const dir = join(cacheRoot, sha.slice(0, 16));
  const lightningd = join(dir, 'bin', 'lightningd');
  if (!existsSync(lightningd)) {
    mkdirSync(cacheRoot, { recursive: true });
    const staging = `${dir}.partial-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging);
    const tar = spawnSync('tar', ['-xf', tarball, '-C', staging], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (tar.status !== 0 || !existsSync(join(staging, 'bin', 'lightningd'))) {
      rmSync(staging, { recursive: true, force: true });
      process.stderr.write(`real-nodes: could not unpack ${tarball} (no bin/lightningd in it)\n`);
      return 1;
    }
    // Another run may have unpacked it meanwhile: keep the first.
    try {
      renameSync(staging, dir);
    } catch {
      rmSync(staging, { recursive: true, force: true });
    }
  }
  const missing = missingLibraries(lightningd);
  if (missing.some((lib) => lib.startsWith('libsodium'))) {
    process.stderr.write('real-nodes: installing libsodium23 (lightningd needs it)\n');
    const apt = (args) => spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (apt(['install', '-y', '-q', 'libsodium23']).status !== 0) {
      apt(['update', '-q']);
      apt(['install', '-y', '-q', 'libsodium23']);
    }
  }
  const still = missingLibraries(lightningd);
  if (still.length > 0) {
    process.stderr.write(`real-nodes: lightningd cannot run, libraries missing: ${still.join(', ')} (apt-get install -y libsodium23)\n`);
    return 1;
  }
  const version = spawnSync(lightningd, ['--version'], { encoding: 'utf8' });
  if (version.status !== 0) {
    process.stderr.write(`real-nodes: ${lightningd} --version failed: ${version.stderr}\n`);
    return 1;
  }
  process.stderr.write(`real-nodes: Core Lightning ${version.stdout.trim()} at ${lightningd}\n`);
  say(`lightningd=${lightningd}`);
  return 0;
}

process.exitCode = main();
