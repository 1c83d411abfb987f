// Script verification throughput of the devnet node: Taproot script-path claims per second, against
// plain P2WPKH spends measured in the same run as the baseline.
import { pathToFileURL } from 'node:url';
import { verifyTransactionScripts } from '../src/devnet/bitcoin/verify/index.ts';
import { buildClaim, makeHtlc, p2wpkhScript, spendP2wpkh, walletKey, type SignedSpend } from '../test/helpers/htlc.ts';

const DISTINCT = 16; // different transactions, cycled, so no run verifies one transaction only
const WARMUP = 30;
const N = 300;

function fakeTxid(i: number): string {
  return (i + 1).toString(16).padStart(64, 'a');
}

function taprootClaims(): SignedSpend[] {
  return Array.from({ length: DISTINCT }, (_, i) => {
    const htlc = makeHtlc({ kind: 'taproot', direction: i % 2 === 0 ? 'submarine' : 'reverse' });
    return buildClaim(htlc, { txid: fakeTxid(i), vout: 0, value: 100_000n + BigInt(i), script: htlc.outputScript });
  });
}

function p2wpkhSpends(): SignedSpend[] {
  const script = p2wpkhScript(walletKey.publicKey);
  return Array.from({ length: DISTINCT }, (_, i) =>
    spendP2wpkh({ txid: fakeTxid(i), vout: 0, value: 50_000n + BigInt(i), script }),
  );
}

interface Rate {
  perSecond: number; // wall clock
  cpuMs: number; // this process's CPU time per spend: steadier on a shared machine
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
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  run(N);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const used = process.cpuUsage(cpu);
  return { perSecond: N / seconds, cpuMs: (used.user + used.system) / 1000 / N };
}

export async function benchVerify(): Promise<string[]> {
  const taproot = measure(taprootClaims());
  const p2wpkh = measure(p2wpkhSpends());
  const line = (name: string, rate: Rate) =>
    `${name}: ${rate.perSecond.toFixed(0)} spends/s, ` +
    `${(1000 / rate.perSecond).toFixed(2)} ms wall / ${rate.cpuMs.toFixed(2)} ms CPU each (N=${N})`;
  return [
    line('taproot script-path claim', taproot),
    line('p2wpkh spend (baseline)', p2wpkh),
    `taproot script-path / p2wpkh throughput: ${(taproot.perSecond / p2wpkh.perSecond).toFixed(2)}x`,
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const line of await benchVerify()) console.log(line);
}
