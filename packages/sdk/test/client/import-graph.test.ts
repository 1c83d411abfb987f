// The client SDK's core (src/client/index.ts) is what a browser bundles: its import graph must hold no Node built-in,
// no file outside this package or of its Node side, and nothing of the service's or the devnet's packages. This
// walks the graph the way TypeScript reads it (every import, export-from and import() with a literal specifier,
// type-only ones too: a package's declarations need them as well) and names the chain of imports to each offence.
// Walked again without import() and type-only imports — what a page loads with the core — it must not reach
// secp256k1-zkp: that package (1.9 MB of WebAssembly) is fetched on the first L-BTC operation, never by a BTC wallet.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

interface Edge {
  specifier: string;
  typeOnly: boolean;
  /** An import() call: the module loads when the call runs, not with the importing file. */
  dynamic?: boolean;
}

/** The module specifiers a file imports, as TypeScript parses them. */
function importsOf(file: string): Edge[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const edges: Edge[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly || (clause.name === undefined && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly)));
      edges.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.exportClause;
      const typeOnly = node.isTypeOnly || (clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly));
      edges.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments.length === 1 && ts.isStringLiteralLike(node.arguments[0])) {
      edges.push({ specifier: node.arguments[0].text, typeOnly: false, dynamic: true });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      edges.push({ specifier: node.argument.literal.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

const isBuiltin = (specifier: string): boolean => specifier.startsWith('node:') || builtinModules.includes(specifier);
const packageOf = (specifier: string): string => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

interface Closure {
  /** Every file reached, by path relative to the root, with the chain of files that first reached it. */
  files: Map<string, string[]>;
  /** Every package specifier reached, with the chain that first reached it (its last element the specifier). */
  packages: Map<string, string[]>;
}

/** Which imports to follow besides the ones that load with the file: import() calls, type-only imports. */
interface Follow {
  dynamic: boolean;
  typeOnly: boolean;
}
const EVERY_IMPORT: Follow = { dynamic: true, typeOnly: true };
/** What runs: the modules a page loads with the file, and those an import() loads later. */
const AT_RUN_TIME: Follow = { dynamic: true, typeOnly: false };
/** What a page loads with the file itself. */
const LOADED_WITH: Follow = { dynamic: false, typeOnly: false };

function closureOf(root: string, entry: string, follow: Follow = EVERY_IMPORT): Closure {
  const files = new Map<string, string[]>();
  const packages = new Map<string, string[]>();
  const walk = (file: string, chain: string[]): void => {
    const name = relative(root, file).split(sep).join('/');
    if (files.has(name)) return;
    const here = [...chain, name];
    files.set(name, here);
    if (!file.endsWith('.ts')) return; // JSON and other data: a leaf
    for (const { specifier, typeOnly, dynamic } of importsOf(file)) {
      if ((typeOnly && !follow.typeOnly) || (dynamic && !follow.dynamic)) continue;
      if (specifier.startsWith('.')) {
        const target = resolve(dirname(file), specifier);
        if (!existsSync(target)) throw new Error(`${name} imports ${specifier}, which does not exist`);
        walk(target, here);
      } else if (!packages.has(specifier)) {
        packages.set(specifier, [...here, specifier]);
      }
    }
  };
  walk(resolve(root, entry), []);
  return { files, packages };
}

/**
 * Where the core's files may live: this package's src/, outside its Node entry (client/node.ts and what only it
 * needs) and outside what the package keeps for the service and the devnet alone (the hold plugin's messages, onion
 * messages, private files), which a browser never loads.
 */
const FORBIDDEN = [/^src\/client\/node(\/|\.ts$)/, /^src\/fs\//, /^src\/lightning\/(hold|onion)\//];
/** The other workspaces: the SDK depends on neither. */
const WORKSPACES = /^(ferry|@ferry\/)/;

/** Every offence in the closure of `entry`, one line each: what, and the chain of imports that reaches it. */
function offences(root: string, entry: string): string[] {
  const { files, packages } = closureOf(root, entry);
  const found: string[] = [];
  for (const [specifier, chain] of packages) {
    if (isBuiltin(specifier)) found.push(`Node built-in ${specifier}: ${chain.join(' → ')}`);
    if (WORKSPACES.test(specifier)) found.push(`another workspace ${specifier}: ${chain.join(' → ')}`);
  }
  for (const [file, chain] of files) {
    if (file.startsWith('node_modules/')) continue; // a package's data file (boltz-core's artifact JSON)
    if (FORBIDDEN.some((pattern) => pattern.test(file)) || !file.startsWith('src/')) {
      found.push(`not the SDK core's: ${file}: ${chain.join(' → ')}`);
    }
  }
  return found;
}

const repo = resolve(import.meta.dirname, '..', '..');

describe('the client SDK core imports nothing of Node, the service or the devnet', () => {
  test('src/client/index.ts: no Node built-in, no other workspace, no file outside the package or of its Node side', () => {
    const found = offences(repo, 'src/client/index.ts');
    assert.deepEqual(found, [], `the SDK core's import graph reaches:\n${found.join('\n')}`);
  });

  test('every package the core imports is a dependency of the package, not a dev dependency', () => {
    const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const { packages } = closureOf(repo, 'src/client/index.ts');
    const missing = [...packages.keys()].map(packageOf).filter((name) => !(name in manifest.dependencies));
    assert.deepEqual([...new Set(missing)], []);
    const names = [...new Set([...packages.keys()].map(packageOf))].sort();
    assert.ok(names.includes('boltz-core') && names.includes('buffer') && !names.includes('ws') && !names.includes('pngjs'), names.join(', '));
  });

  test('secp256k1-zkp is reached from the core only through import(): a page loads it on demand, not with the SDK', () => {
    const zkp = '@vulpemventures/secp256k1-zkp';
    const of = (follow: Follow) => [...closureOf(repo, 'src/client/index.ts', follow).packages].filter(([specifier]) => packageOf(specifier) === zkp);
    assert.ok(of(AT_RUN_TIME).length > 0, `the core's code reaches ${zkp} at run time (L-BTC needs it)`);
    assert.deepEqual(
      of(LOADED_WITH).map(([, chain]) => chain.join(' → ')),
      [],
      `${zkp} loads with the core`,
    );
  });

  test('the walk finds a built-in and a devnet file however deep, through every kind of import, and names the chain', () => {
    const base = mkdtempSync(join(tmpdir(), 'ferry-import-graph-'));
    const root = join(base, 'packages', 'sdk');
    try {
      const write = (path: string, text: string) => {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
      };
      write('src/client/index.ts', "export { a } from './a.ts';\nimport type { T } from './types.ts';\nexport const lazy = () => import('./lazy.ts');\n");
      write('src/client/a.ts', "import { b } from '../chains/b.ts';\nexport const a = b;\n");
      write('src/chains/b.ts', "import { readFileSync } from 'fs';\nexport const b = readFileSync;\n");
      write('src/client/types.ts', "import type { Config } from '../../../devnet/src/config.ts';\nexport type T = Config;\n");
      write('../devnet/src/config.ts', 'export type Config = {};\n');
      write('src/client/lazy.ts', "import { EventEmitter } from 'node:events';\nimport 'buffer/index.js';\nimport '@ferry/devnet/index.js';\nexport default EventEmitter;\n");
      const loadedWith = closureOf(root, 'src/client/index.ts', LOADED_WITH);
      assert.deepEqual([...loadedWith.files.keys()].sort(), ['src/chains/b.ts', 'src/client/a.ts', 'src/client/index.ts'], 'neither import() nor a type-only import loads with the file');
      assert.deepEqual([...loadedWith.packages.keys()], ['fs']);
      assert.deepEqual(offences(root, 'src/client/index.ts').sort(), [
        'Node built-in fs: src/client/index.ts → src/client/a.ts → src/chains/b.ts → fs',
        'Node built-in node:events: src/client/index.ts → src/client/lazy.ts → node:events',
        'another workspace @ferry/devnet/index.js: src/client/index.ts → src/client/lazy.ts → @ferry/devnet/index.js',
        "not the SDK core's: ../devnet/src/config.ts: src/client/index.ts → src/client/types.ts → ../devnet/src/config.ts",
      ]);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
