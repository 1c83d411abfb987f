// The devnet Lightning node's CPU per hold invoice (issue 28): on the zero-config start each reverse swap asks the
// devnet's LND face for one (POST /v2/invoices/hodl), and that cost more CPU than Ferry's whole creation. The
// network runs alone in a process of its own (test/helpers/lightning-devnet-child.ts) and its CPU is read from
// /proc around N invoices made through its REST face from this process, 4 in flight; on a 2-core machine shared
// with other work the CPU per invoice is the figure to compare, not the wall clock. The same run measures an older
// tree (HOLD_BENCH_BASELINE, a git revision; its packages/devnet taken with `git archive`, the SDK this tree's), the
// two taking turns round by round so the machine's load weighs on both, each on a state that grows as it would:
// every round adds its invoices to those before. Invoices come plain, with one route hint (a reverse swap's magic
// routing hint), and plain followed by the invoice's subscription (GET /v2/invoices/subscribe/{hash}, its first
// message read and the stream kept open), as Ferry's reverse swap asks for both.
import { execFileSync } from 'node:child_process';
import { request, type ClientRequest } from 'node:http';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { LightningNodeInfo } from '@ferry/devnet/lightning/index.js';
import { startLightningProcess, type LightningProcess } from '../test/helpers/lightning-devnet-process.ts';
import { cpuMeter } from './load/cpu.ts';

const PER_ROUND = Number(process.env.HOLD_BENCH_N ?? 1_000); // per kind (plain, hinted) and round
const ROUNDS = Number(process.env.HOLD_BENCH_ROUNDS ?? 3);
const IN_FLIGHT = 4;
const WARMUP = 200;
// The tree before the journal (issue 28); '' measures this tree alone.
const BASELINE = process.env.HOLD_BENCH_BASELINE ?? '08feb0ee';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const hintKey = Buffer.from(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true)).toString('hex');

const KINDS = ['plain', 'hinted', 'subscribed'] as const;
type Kind = (typeof KINDS)[number];

/** The body Ferry's LND client sends for a reverse swap's hold invoice. */
function holdBody(kind: Kind, hash: Buffer): string {
  return JSON.stringify({
    hash: hash.toString('base64'),
    value_msat: '50000000',
    memo: 'Send to BTC address',
    expiry: '3600',
    cltv_expiry: '80',
    ...(kind === 'hinted' && {
      route_hints: [{ hop_hints: [{ node_id: hintKey, chan_id: '596385002596073472', fee_base_msat: 0, fee_proportional_millionths: 0, cltv_expiry_delta: 80 }] }],
    }),
  });
}

/** Subscribes to an invoice's updates and resolves on its first message, the stream left open in `open`. */
function subscribe(node: LightningNodeInfo, hash: Buffer, open: ClientRequest[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const url = `${node.restUrl}/v2/invoices/subscribe/${encodeURIComponent(hash.toString('base64url') + '=')}`;
    const req = request(url, { headers: { 'Grpc-Metadata-macaroon': node.macaroon } }, (res) => res.once('data', () => resolve()));
    req.once('error', reject);
    req.end();
    open.push(req);
  });
}

async function makeInvoices(node: LightningNodeInfo, kind: Kind, n: number, open: ClientRequest[]): Promise<void> {
  let left = n;
  const worker = async () => {
    while (left-- > 0) {
      const hash = randomBytes(32);
      const response = await fetch(node.restUrl + '/v2/invoices/hodl', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'Grpc-Metadata-macaroon': node.macaroon },
        body: holdBody(kind, hash),
      });
      if (!response.ok) throw new Error(`the node refused a hold invoice: ${await response.text()}`);
      await response.arrayBuffer();
      if (kind === 'subscribed') await subscribe(node, hash, open);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

interface Subject {
  name: string;
  process: LightningProcess;
  /** CPU ms per invoice, per kind, one entry per round. */
  cpu: Record<Kind, number[]>;
  /** Its open subscriptions, closed at the end. */
  open: ClientRequest[];
}

/** The older tree's packages (devnet and SDK) under the repository root, where its imports resolve. */
function extractBaseline(rev: string): { dir: string; lightningModule: string } | string {
  const dir = mkdtempSync(join(repoRoot, '.bench-baseline-'));
  try {
    const archive = execFileSync('git', ['-C', repoRoot, 'archive', rev, 'packages/devnet/src'], { maxBuffer: 1 << 28 });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
    return { dir, lightningModule: join(dir, 'packages/devnet/src/lightning/index.ts') };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    return `baseline ${rev} not measured: ${(err as Error).message.split('\n')[0]}`;
  }
}

const mean = (xs: number[]) => xs.reduce((sum, x) => sum + x, 0) / xs.length;

export async function benchHoldInvoices(): Promise<string[]> {
  const root = mkdtempSync(join(tmpdir(), 'ferry-bench-hold-'));
  const lines: string[] = [];
  const baseline = BASELINE === '' ? 'no baseline asked for' : extractBaseline(BASELINE);
  if (typeof baseline === 'string') lines.push(baseline);
  const subjects: Subject[] = [];
  try {
    if (typeof baseline !== 'string') {
      subjects.push({ name: `before (${BASELINE})`, process: await startLightningProcess(join(root, 'before'), baseline.lightningModule), cpu: { plain: [], hinted: [], subscribed: [] }, open: [] });
    }
    subjects.push({ name: 'after (this tree)', process: await startLightningProcess(join(root, 'after')), cpu: { plain: [], hinted: [], subscribed: [] }, open: [] });
    for (const subject of subjects) await makeInvoices(subject.process.nodes.ferry, 'plain', WARMUP, subject.open);
    for (let round = 0; round < ROUNDS; round++) {
      for (const subject of subjects) {
        for (const kind of KINDS) {
          const meter = cpuMeter([subject.process.pid]);
          await makeInvoices(subject.process.nodes.ferry, kind, PER_ROUND, subject.open);
          subject.cpu[kind].push(meter()[0] / PER_ROUND);
        }
      }
    }
    lines.push(
      `${PER_ROUND} hold invoices of each kind (plain, hinted, subscribed) per round, ${ROUNDS} rounds taking turns, ${IN_FLIGHT} in flight; ` +
        `the node's process CPU (/proc, 10 ms ticks) per invoice; its state ends with ${WARMUP + KINDS.length * ROUNDS * PER_ROUND} invoices`,
    );
    for (const subject of subjects) {
      for (const kind of KINDS) {
        const rounds = subject.cpu[kind].map((ms) => ms.toFixed(2)).join(' / ');
        lines.push(`${subject.name.padEnd(20)} ${kind.padEnd(10)} ${mean(subject.cpu[kind]).toFixed(2)} ms per invoice (rounds ${rounds})`);
      }
    }
    return lines;
  } finally {
    for (const subject of subjects) {
      for (const req of subject.open) req.destroy();
      await subject.process.stop();
    }
    if (typeof baseline !== 'string') rmSync(baseline.dir, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  for (const text of await benchHoldInvoices()) console.log(text);
}
