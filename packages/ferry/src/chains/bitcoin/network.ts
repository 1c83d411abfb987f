// Bitcoin's address encodings per network, for turning output scripts into addresses and back.
import { bech32m } from '@scure/base';
import { Address, OutScript } from '@scure/btc-signer';
import type { Network } from '@ferry/sdk/keys/index.js';

export const NETWORKS = {
  mainnet: { bech32: 'bc', pubKeyHash: 0x00, scriptHash: 0x05, wif: 0x80 },
  testnet: { bech32: 'tb', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef },
  signet: { bech32: 'tb', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef },
  regtest: { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef },
} as const;

const isTaproot = (script: Uint8Array) => script.length === 34 && script[0] === 0x51 && script[1] === 0x20;

export function addressOf(network: Network, script: Uint8Array): string {
  // A Taproot output (every swap's) is written straight from its program, as Bitcoin Core writes any witness v1
  // program: btc-signer would first check the key is on the curve, a square root that was 0.17 ms of each creation.
  if (isTaproot(script)) return bech32m.encode(NETWORKS[network].bech32, [1, ...bech32m.toWords(script.subarray(2))]);
  return Address(NETWORKS[network]).encode(OutScript.decode(script));
}

export function scriptOf(network: Network, address: string): Uint8Array {
  return OutScript.encode(Address(NETWORKS[network]).decode(address));
}

