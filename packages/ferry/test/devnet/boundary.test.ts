// The devnet (the @ferry/devnet package) stays behind one door: no module of the service imports it, except
// zero-config's bootstrap (src/config/devnet.ts, which hands the devnet's nodes to Ferry as configuration) and the
// few listed below with the reason each still does. So the chain adapters, the Lightning connection, the doctor and
// the engine run on an operator's nodes and the devnet's through the same configuration keys. Imports are read by
// TypeScript's own scanner (static, type-only, re-exports and dynamic `import()`), not by pattern matching.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(import.meta.dirname, '../..');
const src = join(root, 'src');
const DEVNET = /^@ferry\/devnet(\/|$)/;

/** The service's modules allowed to import the devnet, and why. */
const allowed: Record<string, string> = {
  'src/config/devnet.ts': "zero-config's bootstrap: starts the devnet and fills the unset backends with its nodes",
  'src/cli/devnet.ts': '`ferry devnet`: the devnet run alone, its devnet.json and ferry.toml, and its tools (mine, pay, send, ...)',
  'src/cli/swap-context.ts': "`ferry swap`'s default payout: a fresh address of the devnet's user wallet",
  'src/cli/swap-contract.ts': "`ferry swap`'s default EVM node and account: the devnet's anvil and user account",
  'src/index.ts': "the package's exports (startDevnet, readDevnetInfo) for tests and tools embedding the devnet",
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** What of the devnet package a module imports. */
function devnetImports(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles.map((imported) => imported.fileName).filter((specifier) => DEVNET.test(specifier));
}

/** Every module of the service that imports the devnet, with what it imports. */
function devnetImporters(files: string[]): Map<string, string[]> {
  const importers = new Map<string, string[]>();
  for (const file of files) {
    const imports = devnetImports(file);
    if (imports.length > 0) importers.set(relative(root, file), imports);
  }
  return importers;
}

test('no module of the service imports the devnet but the bootstrap and the listed ones', () => {
  const importers = devnetImporters(sources(src));
  const intruders = [...importers].filter(([file]) => allowed[file] === undefined).map(([file, imports]) => `${file} imports ${imports.join(', ')}`);
  assert.deepEqual(intruders, [], 'the devnet reaches the service as configuration only (src/config/devnet.ts)');
  // an allowance no longer used is taken off the list, so it cannot cover a later import
  const unused = Object.keys(allowed).filter((file) => !importers.has(file));
  assert.deepEqual(unused, [], 'allowed but importing nothing of the devnet: remove from the list');
});

test('the chain adapters, the Lightning connection, the doctor, the engine and the API read configuration only', () => {
  const adapters = ['chains', 'lightning', 'doctor', 'engine', 'api', 'swaps', 'db', 'alerts', 'keys'].flatMap((dir) => sources(join(src, dir)));
  assert.ok(adapters.some((file) => file.endsWith('chains/registry.ts')) && adapters.some((file) => file.endsWith('lightning/connect.ts')));
  assert.deepEqual([...devnetImporters(adapters).keys()], []);
  assert.deepEqual([...devnetImporters([join(src, 'app.ts')]).keys()], [], 'app.ts starts the devnet through src/config/devnet.ts');
});
