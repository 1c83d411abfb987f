// Runs test files as one queue of jobs — a job is one file on one Lightning backend — on a few workers, the longest
// first (by the times a previous run recorded in scripts/test-timings.json), so the Core Lightning pass overlaps the
// LND pass instead of waiting for it and no slow file starts last. Each job is its own `node --test` process, run
// from its package's directory, on the file's bundle when the run built them (scripts/test-bundles.mjs); its output
// is printed whole when it ends, so files never interleave. The end prints the totals, the failed jobs and the
// slowest jobs, which is where the CI time goes.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { bundleOf } from './test-bundles.mjs';

const keyOf = (job) => `${job.file} (${job.lightning})`;

export function readTimings(path) {
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {};
}

export function writeTimings(path, timings) {
  const sorted = Object.fromEntries(Object.entries(timings).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(path, JSON.stringify(sorted, null, 2) + '\n');
}

/** The counts node's spec reporter prints at its end ("ℹ pass 12"). */
function counts(output) {
  const read = (name) => Number(new RegExp(`^ℹ ${name} (\\d+)$`, 'm').exec(output)?.[1] ?? 0);
  return { tests: read('tests'), pass: read('pass'), fail: read('fail'), skipped: read('skipped'), cancelled: read('cancelled') };
}

function runOne(job, options) {
  const pkg = options.packages.find((dir) => job.file.startsWith(dir + '/'));
  const started = Date.now();
  return new Promise((resolve) => {
    // the file's bundle when the run built them (scripts/test-bundles.mjs), from the package's directory either way
    const target = options.bundles === undefined ? job.file.slice(pkg.length + 1) : bundleOf(options.bundles, job.file);
    const child = spawn(process.execPath, ['--test', '--test-reporter=spec', target], {
      cwd: pkg,
      env: { ...process.env, ...options.env, FERRY_TEST_LIGHTNING: job.lightning },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks = [];
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    child.on('close', (code, signal) => {
      const output = Buffer.concat(chunks).toString('utf8');
      resolve({ job, code: code ?? (signal ? 1 : 0), output, seconds: (Date.now() - started) / 1000, ...counts(output) });
    });
  });
}

export async function runJobs(jobs, options) {
  const known = (job) => options.timings[keyOf(job)] ?? Number.POSITIVE_INFINITY;
  const queue = [...jobs].sort((a, b) => known(b) - known(a));
  const started = Date.now();
  const results = [];
  console.log(`# ${queue.length} test jobs (files on a Lightning backend), ${options.parallel} at a time, the longest first`);
  const worker = async () => {
    for (let job = queue.shift(); job !== undefined; job = queue.shift()) {
      const result = await runOne(job, options);
      results.push(result);
      const verdict = result.code === 0 ? 'ok' : 'FAILED';
      console.log(`\n# ${keyOf(job)}: ${verdict}, ${result.seconds.toFixed(1)} s [${results.length}/${jobs.length}]\n`);
      process.stdout.write(result.output);
    }
  };
  await Promise.all(Array.from({ length: options.parallel }, worker));

  const sum = (name) => results.reduce((total, result) => total + result[name], 0);
  const failed = results.filter((result) => result.code !== 0);
  const slowest = [...results].sort((a, b) => b.seconds - a.seconds).slice(0, 15);
  console.log(`\n# ${results.length} jobs in ${((Date.now() - started) / 1000).toFixed(0)} s: tests ${sum('tests')}, pass ${sum('pass')}, fail ${sum('fail')}, skipped ${sum('skipped')}, cancelled ${sum('cancelled')}`);
  console.log('# slowest jobs:');
  for (const result of slowest) console.log(`#   ${result.seconds.toFixed(1).padStart(6)} s  ${keyOf(result.job)}`);
  if (failed.length > 0) {
    console.log('# FAILED jobs:');
    for (const result of failed) console.log(`#   ${keyOf(result.job)} (exit ${result.code})`);
  }
  const timings = { ...options.timings };
  for (const result of results) timings[keyOf(result.job)] = Math.round(result.seconds * 10) / 10;
  return { failed, timings };
}
