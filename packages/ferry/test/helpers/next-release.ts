// A later release of Ferry for the upgrade tests, built the way a release is: this tree's service sources copied
// into a folder of their own, with migrations appended to the list in src/db/migrations.ts and a later version in
// package.json. Its `bin/ferry.mjs` runs that copy (the same dependencies, through a node_modules link), so an
// instance started from it migrates a shared database exactly as the next release would.
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCHEMA_VERSION } from '../../src/db/migrations.ts';

const packageDir = fileURLToPath(new URL('../../', import.meta.url));
const repoRoot = join(packageDir, '..', '..');

export interface NextRelease {
  /** The release's `ferry` script: pass it to runFerry / startFerry. */
  bin: string;
  version: string;
  remove(): void;
}

/** One migration as it would be written in migrations.ts: its source text, one object of the MIGRATIONS list. */
export interface MigrationSource {
  name: string;
  compatible: boolean;
  /** SQL statements, the same on SQLite and PostgreSQL. */
  statements: string[];
}

export function buildNextRelease(version: string, migrations: MigrationSource[]): NextRelease {
  const root = mkdtempSync(join(tmpdir(), 'ferry-release-'));
  const target = join(root, 'packages', 'ferry');
  for (const part of ['bin', 'src', 'package.json']) cpSync(join(packageDir, part), join(target, part), { recursive: true });
  cpSync(join(repoRoot, 'tsconfig.json'), join(root, 'tsconfig.json'));
  symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'), 'dir');

  const pkgFile = join(target, 'package.json');
  writeFileSync(pkgFile, JSON.stringify({ ...JSON.parse(readFileSync(pkgFile, 'utf8')), version }, null, 2));

  const listFile = join(target, 'src', 'db', 'migrations.ts');
  const source = readFileSync(listFile, 'utf8');
  const end = '\n];\n\n/** The schema version this code expects';
  if (source.split(end).length !== 2) throw new Error('migrations.ts: the end of the MIGRATIONS list moved; update next-release.ts');
  const added = migrations
    .map(
      (m, i) =>
        `  {\n    version: ${SCHEMA_VERSION + i + 1},\n    name: ${JSON.stringify(m.name)},\n    compatible: ${m.compatible},\n` +
        `    statements: () => ${JSON.stringify(m.statements)},\n  },`,
    )
    .join('\n');
  writeFileSync(listFile, source.replace(end, `\n${added}${end}`));
  return { bin: join(target, 'bin', 'ferry.mjs'), version, remove: () => rmSync(root, { recursive: true, force: true }) };
}
