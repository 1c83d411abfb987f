// The human-readable part: `ln` + currency prefix + optional amount in bitcoin with a multiplier letter.
import type { Bolt11Network } from './types.ts';

// Longest first, so `lnbcrt` is not read as `lnbc` with amount `rt`.
const NETWORKS: readonly Bolt11Network[] = ['bcrt', 'tbs', 'bc', 'tb'];

// Pico-bitcoin per unit of each multiplier; 1 msat = 10 pico-bitcoin.
const PICO_PER: Record<string, bigint> = {
  m: 1_000_000_000n,
  u: 1_000_000n,
  n: 1_000n,
  p: 1n,
};
const PICO_PER_BTC = 1_000_000_000_000n;

export interface ParsedHrp {
  network: Bolt11Network;
  amountMsat: bigint | undefined;
}

export function parseHrp(hrp: string): ParsedHrp {
  if (!hrp.startsWith('ln')) throw new Error('invalid invoice prefix: must start with ln');
  const rest = hrp.slice(2);
  const network = NETWORKS.find((n) => rest.startsWith(n));
  if (network === undefined) throw new Error(`unknown invoice network: ${hrp}`);
  const amountPart = rest.slice(network.length);
  if (amountPart === '') return { network, amountMsat: undefined };
  const match = /^([0-9]+)([munp]?)$/.exec(amountPart);
  if (match === null) throw new Error(`invalid invoice amount: ${amountPart}`);
  const [, digits, multiplier] = match;
  if (digits.startsWith('0')) throw new Error('invalid invoice amount: leading zero');
  const pico = BigInt(digits) * (multiplier === '' ? PICO_PER_BTC : PICO_PER[multiplier]);
  if (pico % 10n !== 0n) throw new Error('invalid invoice amount: sub-millisatoshi precision');
  return { network, amountMsat: pico / 10n };
}

// Shortest representation: the largest multiplier that divides the amount exactly.
export function encodeAmount(amountMsat: bigint): string {
  if (amountMsat <= 0n) throw new Error('invoice amount must be positive');
  const pico = amountMsat * 10n;
  if (pico % PICO_PER_BTC === 0n) return (pico / PICO_PER_BTC).toString();
  for (const letter of ['m', 'u', 'n', 'p']) {
    if (pico % PICO_PER[letter] === 0n) return (pico / PICO_PER[letter]).toString() + letter;
  }
  throw new Error('unreachable: pico divides by 1');
}
