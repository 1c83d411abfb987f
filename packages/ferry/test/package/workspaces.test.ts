// The three packages stay three: each package's files import only inside its own src/ (or test/), the workspaces
// they may depend on (the SDK none, the devnet the SDK, the service both) and the packages their own package.json
// declares — dependencies for src/, dev dependencies too for tests. Without this a relative import across a package
// border or a dependency hoisted from a neighbour would work in the checkout and break an installed package.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(import.meta.dirname, '../../../..');
const WORKSPACES: Record<string, { name: string; may: string[] }> = {
  sdk: { name: '@ferry/sdk', may: [] },
  devnet: { name: '@ferry/devnet', may: ['@ferry/sdk'] },
  ferry: { name: 'ferry', may: ['@ferry/sdk', '@ferry/devnet'] },
};
const names = new Set(Object.values(WORKSPACES).map((w) => w.name));
const packageOf = (specifier: string): string => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
const isBuiltin = (specifier: string): boolean => specifier.startsWith('node:') || builtinModules.includes(specifier);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules') return [];
    if (statSync(path).isDirectory()) return files(path);
    return /\.(ts|mjs)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** What a file of `dir` (the package's src/ or test/) imports that it may not. */
function offences(pkg: string, dir: 'src' | 'test'): string[] {
  const home = join(root, 'packages', pkg);
  const manifest = JSON.parse(readFileSync(join(home, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...(dir === 'test' ? Object.keys(manifest.devDependencies ?? {}) : [])]);
  const found: string[] = [];
  for (const file of files(join(home, dir))) {
    for (const { fileName: specifier } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      const where = `${relative(root, file)} → ${specifier}`;
      if (specifier.startsWith('.')) {
        const target = relative(home, resolve(dirname(file), specifier));
        if (target.startsWith('..') || !(target.startsWith('src/') || (dir === 'test' && /^(test|bench)\//.test(target)))) found.push(where);
        continue;
      }
      if (isBuiltin(specifier)) continue;
      const name = packageOf(specifier);
      if (names.has(name) ? !WORKSPACES[pkg].may.includes(name) : !declared.has(name) && name !== WORKSPACES[pkg].name) found.push(where);
      else if (names.has(name) && !declared.has(name)) found.push(`${where} (not in ${pkg}'s package.json)`);
    }
  }
  return found;
}

for (const pkg of Object.keys(WORKSPACES)) {
  test(`${pkg}: its sources import only its own files, the workspaces it may and its declared dependencies`, () => {
    assert.deepEqual(offences(pkg, 'src'), []);
  });
  test(`${pkg}: its tests import only its own files, the workspaces it may and its declared (dev) dependencies`, () => {
    assert.deepEqual(offences(pkg, 'test'), []);
  });
}
