// Bitcoin's address encodings per network, for turning output scripts into addresses and back.
import { Address, OutScript } from '@scure/btc-signer';
import type { Network } from '@ferry/sdk/keys/index.js';

export const NETWORKS = {
  mainnet: { bech32: 'bc', pubKeyHash: 0x00, scriptHash: 0x05, wif: 0x80 },
  testnet: { bech32: 'tb', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef },
  signet: { bech32: 'tb', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef },
  regtest: { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef },
} as const;

export function addressOf(network: Network, script: Uint8Array): string {
  return Address(NETWORKS[network]).encode(OutScript.decode(script));
}

export function scriptOf(network: Network, address: string): Uint8Array {
  return OutScript.encode(Address(NETWORKS[network]).decode(address));
}

