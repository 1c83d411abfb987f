#!/usr/bin/env node
// Packs @ferry/sdk as npm would publish it: the sources compiled to JavaScript with declarations (tsc), hold.proto
// beside them, and a manifest whose exports name the compiled files. In the checkout the package exports its
// TypeScript sources (the service and the devnet run them through tsx); a wallet installing the tarball runs plain
// JavaScript in Node or its bundler, so the published manifest differs in its exports and files only.
// Usage: node scripts/pack.mjs [DESTINATION]   prints the tarball's path on its last line.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

const home = resolve(import.meta.dirname, '..');
const destination = resolve(process.argv[2] ?? home);
const stage = mkdtempSync(join(tmpdir(), 'ferry-sdk-pack-'));
try {
  const tsc = createRequire(join(home, 'package.json')).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(home, 'tsconfig.build.json'), '--outDir', join(stage, 'dist')], { stdio: 'inherit' });
  cpSync(join(home, 'src/lightning/hold/hold.proto'), join(stage, 'dist/lightning/hold/hold.proto'));
  cpSync(join(home, 'README.md'), join(stage, 'README.md'));

  const manifest = JSON.parse(readFileSync(join(home, 'package.json'), 'utf8'));
  const compiled = (path) => ({ types: `./dist/${path}.d.ts`, default: `./dist/${path}.js` });
  manifest.exports = {
    '.': compiled('client/index'),
    './node': compiled('client/node'),
    './*.js': { types: './dist/*.d.ts', default: './dist/*.js' },
    './*.proto': './dist/*.proto',
    './package.json': './package.json',
  };
  manifest.files = ['dist', 'README.md'];
  delete manifest.scripts;
  delete manifest.devDependencies;
  writeFileSync(join(stage, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');

  mkdirSync(destination, { recursive: true });
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', destination], { cwd: stage, encoding: 'utf8' });
  const [{ filename, size, unpackedSize, entryCount }] = JSON.parse(out);
  console.log(`# packed ${manifest.name}@${manifest.version}: ${entryCount} files, ${size} bytes (unpacked ${unpackedSize})`);
  console.log(join(destination, filename));
} finally {
  rmSync(stage, { recursive: true, force: true });
}
