// Bitcoin networks as the client needs them: address encoding, and the invoice prefix that belongs to each.
import { Address, OutScript } from '@scure/btc-signer';
import { Networks } from 'boltz-core';

export type NetworkName = 'mainnet' | 'testnet' | 'signet' | 'regtest';
export const NETWORK_NAMES: readonly NetworkName[] = ['mainnet', 'testnet', 'signet', 'regtest'];

type BtcNetwork = Parameters<typeof Address>[0];

function params(network: NetworkName): BtcNetwork {
  if (network === 'mainnet') return Networks.bitcoin;
  if (network === 'regtest') return Networks.regtest as BtcNetwork;
  return Networks.testnet; // signet shares testnet's address encoding
}

export function addressOfScript(script: Uint8Array, network: NetworkName): string {
  return Address(params(network)).encode(OutScript.decode(script));
}

/** Output script of an address; throws for an address of another network or a malformed one. */
export function scriptOfAddress(address: string, network: NetworkName): Uint8Array {
  try {
    return OutScript.encode(Address(params(network)).decode(address));
  } catch (error) {
    throw new Error(`not a ${network} address: ${address} (${(error as Error).message})`);
  }
}

/** BOLT11 human-readable prefix of the network's invoices. */
export const INVOICE_NETWORK: Record<NetworkName, string> = { mainnet: 'bc', testnet: 'tb', signet: 'tbs', regtest: 'bcrt' };
