// An invoice's prefix: `ln`, the network (`bc`, `tb`, `tbs` for signet, `bcrt`) and the amount in bitcoin with an
// optional multiplier (m, u, n, p). A reader rejects amounts with a leading zero, picobitcoin amounts that are not
// whole millisatoshis, and amounts beyond 21 million bitcoin; a writer picks the largest multiplier that writes the
// amount in whole units.
import type { Bolt11Network } from './types.ts';

// Longest first, so `lnbcrt` is not read as `lnbc` with amount `rt`.
const BY_LENGTH: readonly Bolt11Network[] = ['bcrt', 'tbs', 'bc', 'tb'];

// Millisatoshis per unit of each multiplier; no multiplier is whole bitcoin.
const MSAT_PER_BTC = 100_000_000_000n;
const MULTIPLIERS = [
  ['', MSAT_PER_BTC],
  ['m', MSAT_PER_BTC / 1_000n],
  ['u', MSAT_PER_BTC / 1_000_000n],
  ['n', MSAT_PER_BTC / 1_000_000_000n],
] as const;
const MAX_MSAT = 21_000_000n * MSAT_PER_BTC;

export interface InvoicePrefix {
  network: Bolt11Network;
  amountMsat: bigint | undefined;
}

export function readPrefix(prefix: string): InvoicePrefix {
  const hrp = prefix.toLowerCase();
  if (!hrp.startsWith('ln')) throw new Error('invalid invoice prefix: must start with ln');
  const rest = hrp.slice(2);
  const network = BY_LENGTH.find((n) => rest.startsWith(n));
  if (network === undefined) throw new Error(`unknown invoice network: ${hrp}`);
  const amount = rest.slice(network.length);
  const parts = /^(?:([0-9]+)([munp]?))?$/.exec(amount);
  if (parts === null) throw new Error(`invalid invoice amount: ${amount}`);
  if (amount.startsWith('0')) throw new Error('invalid invoice amount: leading zero');
  if (parts[1] === undefined) return { network, amountMsat: undefined };
  const value = BigInt(parts[1]);
  let amountMsat: bigint;
  if (parts[2] === 'p') {
    if (value % 10n !== 0n) throw new Error('invalid invoice amount: less than a millisatoshi');
    amountMsat = value / 10n;
  } else {
    amountMsat = value * MULTIPLIERS.find(([letter]) => letter === parts[2])![1];
  }
  if (amountMsat > MAX_MSAT) throw new Error('invalid invoice amount: more than 21 million bitcoin');
  return { network, amountMsat };
}

export function writePrefix(network: Bolt11Network, amountMsat: bigint | undefined): string {
  if (amountMsat === undefined) return `ln${network}`;
  const unit = MULTIPLIERS.find(([, msat]) => amountMsat % msat === 0n);
  const amount = unit === undefined ? `${amountMsat * 10n}p` : `${amountMsat / unit[1]}${unit[0]}`;
  return `ln${network}${amount}`;
}
