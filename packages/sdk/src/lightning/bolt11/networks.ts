// Ferry's invoice networks as the bolt11 package wants them, and the network read from an invoice's prefix.
// Our own code because bolt11 has no signet (`lntbs`) network of its own, and its prefix reading accepts
// amounts with leading zeros, which BOLT #11 forbids; everything else about the amount is left to bolt11.
import type { Bolt11Network } from './types.ts';

interface Bolt11PackageNetwork {
  bech32: string;
  pubKeyHash: number;
  scriptHash: number;
  validWitnessVersions: number[];
}

// bech32 is the invoice prefix; the rest only shapes the fallback address strings bolt11 renders (Ferry reads
// the raw fallback program instead).
export const NETWORKS: Record<Bolt11Network, Bolt11PackageNetwork> = {
  bc: { bech32: 'bc', pubKeyHash: 0x00, scriptHash: 0x05, validWitnessVersions: [0, 1] },
  tb: { bech32: 'tb', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] },
  tbs: { bech32: 'tbs', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] },
  bcrt: { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] },
};

// Longest first, so `lnbcrt` is not read as `lnbc` with amount `rt`.
const BY_LENGTH: readonly Bolt11Network[] = ['bcrt', 'tbs', 'bc', 'tb'];

export function networkOfInvoice(text: string): Bolt11Network {
  const separator = text.lastIndexOf('1');
  if (separator < 0) throw new Error('invalid invoice encoding: no separator');
  const hrp = text.slice(0, separator).toLowerCase();
  if (!hrp.startsWith('ln')) throw new Error('invalid invoice prefix: must start with ln');
  const rest = hrp.slice(2);
  const network = BY_LENGTH.find((n) => rest.startsWith(n));
  if (network === undefined) throw new Error(`unknown invoice network: ${hrp}`);
  const amount = rest.slice(network.length);
  if (!/^([0-9]+[munp]?)?$/.test(amount)) throw new Error(`invalid invoice amount: ${amount}`);
  if (amount.startsWith('0')) throw new Error('invalid invoice amount: leading zero');
  return network;
}
