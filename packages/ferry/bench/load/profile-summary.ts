// Where a V8 CPU profile's time went, by hand-readable lines: the functions and the modules (a package, a source
// file of Ferry, node's internals) with the most self time, and Ferry's own functions (src/) with the most total
// time (themselves and what they call), as shares of the time the process was not idle.
// `node --import tsx bench/load/profile-summary.ts FILE.cpuprofile [TOP]` summarises a profile from `--cpu-prof`.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  startTime: number;
  endTime: number;
}

const root = fileURLToPath(new URL('../../', import.meta.url));

/** A package name, a path under the project, or node's own module; V8's pseudo frames keep their name. */
export function moduleOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (inPackage) return inPackage[1];
  if (path.startsWith(root)) return path.slice(root.length);
  if (path.startsWith('node:')) return path.split('/').slice(0, 2).join('/');
  return path;
}

function top(counts: Map<string, number>, busy: number, n: number, msPerSample: number): string[] {
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, count]) => `${((100 * count) / busy).toFixed(1).padStart(5)}%  ${(count * msPerSample).toFixed(0).padStart(6)} ms  ${name}`);
}

/** For each node, the names of Ferry's functions (src/) on its stack, itself included, each once. */
function ferryStacks(profile: CpuProfile): Map<number, string[]> {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const stacks = new Map<number, string[]>();
  for (const node of profile.nodes) {
    const names = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)!;
      const module = moduleOf(frame.url, frame.functionName);
      // No line: tsx's transpiled sources report positions that are not the file's own.
      if (module.startsWith('src/')) names.add(`${frame.functionName || '(anonymous)'} ${module}`);
    }
    stacks.set(node.id, [...names]);
  }
  return stacks;
}

/** The top `n` functions and modules by self time, and Ferry's functions by total time. */
export function summarise(profile: CpuProfile, n = Number(process.env.FERRY_BENCH_PROFILE_TOP ?? 12)): string[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const stacks = ferryStacks(profile);
  const ferry = new Map<string, number>();
  const msPerSample = (profile.endTime - profile.startTime) / 1000 / Math.max(1, profile.samples.length);
  const functions = new Map<string, number>();
  const modules = new Map<string, number>();
  let busy = 0;
  for (const id of profile.samples) {
    const frame = byId.get(id)!;
    if (frame.functionName === '(idle)') continue;
    busy++;
    const module = moduleOf(frame.url, frame.functionName);
    const fn = `${frame.functionName || '(anonymous)'} ${module}${frame.url && !module.startsWith('src/') ? `:${frame.lineNumber + 1}` : ''}`;
    functions.set(fn, (functions.get(fn) ?? 0) + 1);
    modules.set(module, (modules.get(module) ?? 0) + 1);
    for (const name of stacks.get(id)!) ferry.set(name, (ferry.get(name) ?? 0) + 1);
  }
  const idle = profile.samples.length - busy;
  return [
    `profile: ${((profile.endTime - profile.startTime) / 1e6).toFixed(1)} s, ${(busy * msPerSample).toFixed(0)} ms busy, ${(idle * msPerSample).toFixed(0)} ms idle; self time of the busy samples:`,
    'top functions:',
    ...top(functions, busy, n, msPerSample).map((line) => '  ' + line),
    'top modules:',
    ...top(modules, busy, n, msPerSample).map((line) => '  ' + line),
    "Ferry's functions by total time:",
    ...top(ferry, busy, n + 8, msPerSample).map((line) => '  ' + line),
  ];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const profile = JSON.parse(readFileSync(process.argv[2], 'utf8')) as CpuProfile;
  for (const line of summarise(profile, Number(process.argv[3] ?? 20))) console.log(line);
}
