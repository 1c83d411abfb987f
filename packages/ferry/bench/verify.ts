// Transaction verification throughput of the devnet nodes, Bitcoin and Liquid, in one run: Taproot
// swap spends (script-path claim, key-path spend) per second, each chain against its own plain
// P2WPKH spend measured in the same run as the baseline. Every transaction spends one input, so
// spends/s is transactions/s. The Liquid side is in verify-liquid.ts.
import { pathToFileURL } from 'node:url';
import { verifyTransactionScripts } from '@ferry/devnet/bitcoin/verify/index.js';
import {
  buildClaim,
  buildKeyPathSpend,
  makeHtlc,
  p2wpkhScript,
  spendP2wpkh,
  walletKey,
  type SignedSpend,
} from '../test/helpers/htlc.ts';
import { rateLine, ratio, startClock, type Rate } from './rate.ts';
import { measureLiquid, partsLine } from './verify-liquid.ts';

const DISTINCT = 16; // different transactions, cycled, so no run verifies one transaction only
const WARMUP = 30;
const N = 300;

function fakeTxid(i: number): string {
  return (i + 1).toString(16).padStart(64, 'a');
}

function taprootHtlc(i: number) {
  return makeHtlc({ kind: 'taproot', direction: i % 2 === 0 ? 'submarine' : 'reverse' });
}

function taprootClaims(): SignedSpend[] {
  return Array.from({ length: DISTINCT }, (_, i) => {
    const htlc = taprootHtlc(i);
    return buildClaim(htlc, { txid: fakeTxid(i), vout: 0, value: 100_000n + BigInt(i), script: htlc.outputScript });
  });
}

/** Cooperative (MuSig2) key-path spends of swap lockups. */
function taprootKeyPathSpends(): SignedSpend[] {
  return Array.from({ length: DISTINCT }, (_, i) => {
    const htlc = taprootHtlc(i);
    return buildKeyPathSpend(htlc, { txid: fakeTxid(i), vout: 0, value: 120_000n + BigInt(i), script: htlc.outputScript });
  });
}

function p2wpkhSpends(): SignedSpend[] {
  const script = p2wpkhScript(walletKey.publicKey);
  return Array.from({ length: DISTINCT }, (_, i) =>
    spendP2wpkh({ txid: fakeTxid(i), vout: 0, value: 50_000n + BigInt(i), script }),
  );
}

/** Verification rate over N verifications, after a warm-up; throws if any spend fails. */
function measure(spends: SignedSpend[]): Rate {
  const run = (count: number) => {
    for (let i = 0; i < count; i++) {
      const spend = spends[i % spends.length];
      const result = verifyTransactionScripts(spend.hex, spend.prevouts);
      if (!result.ok) throw new Error(`benchmark spend rejected: ${result.reason}`);
    }
  };
  run(WARMUP);
  const stop = startClock(N);
  run(N);
  return stop();
}

export async function benchVerify(): Promise<string[]> {
  const bitcoin = {
    scriptPath: measure(taprootClaims()),
    keyPath: measure(taprootKeyPathSpends()),
    p2wpkh: measure(p2wpkhSpends()),
  };
  const liquid = await measureLiquid();
  return [
    rateLine('bitcoin taproot script-path claim', bitcoin.scriptPath),
    rateLine('bitcoin taproot key-path spend', bitcoin.keyPath),
    rateLine('bitcoin p2wpkh spend (baseline)', bitcoin.p2wpkh),
    `bitcoin taproot script-path / p2wpkh throughput: ${ratio(bitcoin.scriptPath, bitcoin.p2wpkh)}`,
    `bitcoin taproot key-path / p2wpkh throughput: ${ratio(bitcoin.keyPath, bitcoin.p2wpkh)}`,
    rateLine('liquid taproot script-path claim, blinded', liquid.scriptPath.rate),
    partsLine(liquid.scriptPath.rate, liquid.scriptPath.parts),
    rateLine('liquid taproot key-path spend, blinded', liquid.keyPath.rate),
    partsLine(liquid.keyPath.rate, liquid.keyPath.parts),
    rateLine('liquid p2wpkh spend, blinded (baseline)', liquid.p2wpkh.rate),
    partsLine(liquid.p2wpkh.rate, liquid.p2wpkh.parts),
    `liquid taproot script-path / p2wpkh throughput: ${ratio(liquid.scriptPath.rate, liquid.p2wpkh.rate)}`,
    `liquid taproot key-path / p2wpkh throughput: ${ratio(liquid.keyPath.rate, liquid.p2wpkh.rate)}`,
    `liquid / bitcoin script-path claim throughput: ${ratio(liquid.scriptPath.rate, bitcoin.scriptPath)}`,
    `liquid / bitcoin key-path spend throughput: ${ratio(liquid.keyPath.rate, bitcoin.keyPath)}`,
    `liquid / bitcoin p2wpkh spend throughput: ${ratio(liquid.p2wpkh.rate, bitcoin.p2wpkh)}`,
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const line of await benchVerify()) console.log(line);
}
