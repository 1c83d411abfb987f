// The Liquid side of the verification benchmark: the devnet Elements verifier (verifyElementsTransaction:
// balance, range and surjection proofs, Elements sighashes, tapscript) on real confidential transactions
// built with test/helpers/liquid.ts. One funding transaction locks coins in blinded outputs (swap lockups,
// key-path outputs, P2WPKH outputs); each benchmark transaction spends one of them to a blinded output and
// an explicit fee, as Ferry's claims do. Before anything is timed, every transaction must verify and a
// tampered copy of each kind must be rejected, so no failing (early-exit) path is ever timed.
import { Transaction } from 'liquidjs-lib';
import { verifyElementsTransaction, type ElementsPrevout } from '@ferry/devnet/elements/verify/index.js';
import { verifyAmounts } from '@ferry/devnet/elements/verify/amounts.js';
import { verifyRangeProof, verifySurjectionProof } from '@ferry/devnet/elements/verify/proofs.js';
import { loadZkp, type Zkp } from '@ferry/sdk/chains/liquid/zkp.js';
import {
  claim,
  fund,
  keyPathScript,
  newKey,
  newLockup,
  p2wpkh,
  prevoutOf,
  setup,
  spendKeyPath,
  spendP2wpkh,
} from '../test/helpers/liquid.ts';
import { startClock, type Rate } from './rate.ts';

// A confidential spend costs ~30 ms to verify and ~200 ms to build, so fewer and shorter runs than
// Bitcoin's: the Liquid side takes about 10 s on an idle machine.
const DISTINCT = 4; // different transactions per kind, cycled
const WARMUP = 3;
const N = 30;
const PARTS_N = 12; // runs per part in the cost breakdown

export interface LiquidSpend {
  hex: string;
  prevouts: ElementsPrevout[];
}

export interface LiquidSpends {
  scriptPath: LiquidSpend[]; // swap claims by script path (preimage + claim key), submarine and reverse trees
  keyPath: LiquidSpend[]; // Taproot key-path spends
  p2wpkh: LiquidSpend[]; // the baseline
}

export type LiquidKind = keyof LiquidSpends;

/** `distinct` confidential spends of each kind, all of outputs of one blinded funding transaction. */
export async function buildLiquidSpends(distinct = DISTINCT): Promise<LiquidSpends> {
  await setup();
  const indices = Array.from({ length: distinct }, (_, i) => i);
  const lockups = indices.map((i) => newLockup(i % 2 === 0 ? 'submarine' : 'reverse'));
  const keyPathOwners = indices.map(() => newKey());
  const p2wpkhOwners = indices.map(() => newKey());
  const funding = fund(newKey(), [
    ...lockups.map((lockup, i) => ({ script: lockup.script, amount: 200_000 + i })),
    ...keyPathOwners.map((owner, i) => ({ script: keyPathScript(owner), amount: 120_000 + i })),
    ...p2wpkhOwners.map((owner, i) => ({ script: p2wpkh(owner), amount: 100_000 + i })),
  ]);
  const spend = (tx: Transaction, vout: number): LiquidSpend => ({ hex: tx.toHex(), prevouts: [prevoutOf(funding.tx.outs[vout])] });
  return {
    scriptPath: lockups.map((lockup, i) => spend(claim(funding, i, lockup), i)),
    keyPath: keyPathOwners.map((owner, i) => spend(spendKeyPath(funding, distinct + i, owner), distinct + i)),
    p2wpkh: p2wpkhOwners.map((owner, i) => spend(spendP2wpkh(funding, 2 * distinct + i, owner), 2 * distinct + i)),
  };
}

async function verifyOrThrow(kind: string, spend: LiquidSpend): Promise<void> {
  const result = await verifyElementsTransaction(spend.hex, spend.prevouts);
  if (!result.ok) throw new Error(`liquid benchmark ${kind} spend rejected: ${result.reason}${result.detail ? ` (${result.detail})` : ''}`);
}

function isCommitted(value: Uint8Array): boolean {
  return value[0] === 0x08 || value[0] === 0x09;
}

function flipByte(bytes: Buffer): Buffer {
  const copy = Buffer.from(bytes);
  copy[Math.floor(copy.length / 2)] ^= 0x01;
  return copy;
}

/**
 * Throws unless every spend is confidential (blinded input, a blinded output with its proofs) and
 * verifies, and unless the verifier rejects, for each kind, a copy with a flipped range-proof byte (the
 * amounts check, which dominates the cost, really runs) and one with a flipped signature byte (so does
 * the script check).
 */
export async function checkLiquidSpends(spends: LiquidSpends): Promise<void> {
  for (const [kind, list] of Object.entries(spends) as [LiquidKind, LiquidSpend[]][]) {
    if (list.length === 0) throw new Error(`no liquid ${kind} spends to benchmark`);
    for (const spend of list) {
      const tx = Transaction.fromHex(spend.hex);
      if (!spend.prevouts.every((prevout) => 'valueCommitment' in prevout)) throw new Error(`liquid ${kind} spend has an explicit input`);
      if (!tx.outs.some((out) => isCommitted(out.value) && (out.rangeProof?.length ?? 0) > 0 && (out.surjectionProof?.length ?? 0) > 0)) {
        throw new Error(`liquid ${kind} spend has no blinded output`);
      }
      await verifyOrThrow(kind, spend);
    }
    const tampered = async (change: (tx: Transaction) => void, expected: RegExp, what: string) => {
      const tx = Transaction.fromHex(list[0].hex);
      change(tx);
      const result = await verifyElementsTransaction(tx.toHex(), list[0].prevouts);
      if (result.ok || !expected.test(`${result.reason} ${result.detail ?? ''}`)) {
        throw new Error(`liquid ${kind} spend with ${what} not rejected as expected: ${JSON.stringify(result)}`);
      }
    };
    await tampered(
      (tx) => {
        const out = tx.outs.find((o) => isCommitted(o.value))!;
        out.rangeProof = flipByte(out.rangeProof!);
      },
      /^bad-txns-in-ne-out .*range proof/,
      'a corrupted range proof',
    );
    await tampered(
      (tx) => {
        tx.ins[0].witness[0] = flipByte(tx.ins[0].witness[0]);
      },
      /^mandatory-script-verify-flag-failed/,
      'a corrupted signature',
    );
  }
}

/** Full verification rate over N transactions, after a warm-up; throws if any is rejected. */
async function measure(kind: LiquidKind, spends: LiquidSpend[]): Promise<Rate> {
  const run = async (count: number) => {
    for (let i = 0; i < count; i++) await verifyOrThrow(kind, spends[i % spends.length]);
  };
  await run(WARMUP);
  const stop = startClock(N);
  await run(N);
  return stop();
}

/** CPU ms per transaction of each amounts part, calling the functions verifyElementsTransaction calls. */
export interface LiquidParts {
  amounts: number; // verifyAmounts: commitments, balance, range and surjection proofs
  rangeProofs: number; // verifyRangeProof of every blinded output
  surjectionProofs: number; // verifySurjectionProof of every blinded asset
}

function measureParts(zkp: Zkp, spends: LiquidSpend[]): LiquidParts {
  const parsed = spends.map((spend) => ({ tx: Transaction.fromHex(spend.hex), prevouts: spend.prevouts }));
  const part = (check: (tx: Transaction, prevouts: ElementsPrevout[]) => void): number => {
    for (let i = 0; i < WARMUP; i++) check(parsed[i % parsed.length].tx, parsed[i % parsed.length].prevouts);
    const stop = startClock(PARTS_N);
    for (let i = 0; i < PARTS_N; i++) check(parsed[i % parsed.length].tx, parsed[i % parsed.length].prevouts);
    return stop().cpuMs;
  };
  const fail = (what: string): never => {
    throw new Error(`liquid benchmark: ${what} does not verify`);
  };
  return {
    amounts: part((tx, prevouts) => {
      const error = verifyAmounts(zkp, tx, prevouts);
      if (error !== undefined) fail(`amounts (${error})`);
    }),
    rangeProofs: part((tx) => {
      for (const out of tx.outs) {
        if (!isCommitted(out.value)) continue;
        if (!verifyRangeProof(zkp, out.rangeProof ?? Buffer.alloc(0), out.value, out.asset, out.script)) fail('a range proof');
      }
    }),
    surjectionProofs: part((tx, prevouts) => {
      const inputTags = prevouts.map((prevout) => ('assetCommitment' in prevout ? prevout.assetCommitment : fail('an explicit input')));
      for (const out of tx.outs) {
        if (out.asset[0] !== 0x0a && out.asset[0] !== 0x0b) continue;
        if (!verifySurjectionProof(zkp, out.surjectionProof ?? Buffer.alloc(0), inputTags, out.asset)) fail('a surjection proof');
      }
    }),
  };
}

export interface LiquidResult {
  rate: Rate;
  parts: LiquidParts;
}

/** Builds and checks the spends, then times each kind: full verification, then its parts. */
export async function measureLiquid(): Promise<Record<LiquidKind, LiquidResult>> {
  const spends = await buildLiquidSpends();
  await checkLiquidSpends(spends);
  const zkp = await loadZkp();
  const result = {} as Record<LiquidKind, LiquidResult>;
  for (const kind of ['scriptPath', 'keyPath', 'p2wpkh'] as const) {
    result[kind] = { rate: await measure(kind, spends[kind]), parts: measureParts(zkp, spends[kind]) };
  }
  return result;
}

/** Where a transaction's CPU time goes; the last two shares are differences of separate runs. */
export function partsLine(rate: Rate, parts: LiquidParts): string {
  const total = rate.cpuMs;
  const share = (ms: number) => `${ms.toFixed(2)} ms (${((100 * ms) / total).toFixed(0)}%)`;
  const other = parts.amounts - parts.rangeProofs - parts.surjectionProofs;
  return (
    `  of ${total.toFixed(2)} ms CPU: range proofs ${share(parts.rangeProofs)}, surjection proofs ${share(parts.surjectionProofs)}, ` +
    `commitments + balance ${share(other)}, scripts + parsing ${share(total - parts.amounts)} (last two by difference, N=${PARTS_N})`
  );
}
