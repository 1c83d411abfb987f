// elementsregtest addresses: an output script with an optional blinding public key, as the confidential
// address (blech32 `el1…`, or base58 with prefix 4) and the unconfidential one (bech32 `ert1…`, base58).
// The encodings are Ferry's Liquid ones (src/chains/liquid/network.ts) for the regtest network.
import * as liquidNetwork from '@ferry/sdk/chains/liquid/network.js';

export interface DecodedAddress {
  script: Uint8Array;
  unconfidential: string;
  blindingKey?: Uint8Array; // 33-byte blinding public key, only in a confidential address
}

/** The unconfidential address of a script; throws for a script no address stands for. */
export const unconfidentialAddress = (script: Uint8Array): string => liquidNetwork.unconfidentialAddress(script, 'regtest');

/** The confidential address of a script paid with this blinding public key. */
export const confidentialAddress = (script: Uint8Array, blindingKey: Uint8Array): string =>
  liquidNetwork.confidentialAddress(script, blindingKey, 'regtest');

/** Either form of an elementsregtest address; throws "Invalid address" for anything else (another network too). */
export function decodeAddress(text: string): DecodedAddress {
  const { script, unconfidential, blindingPublicKey } = liquidNetwork.decodeAddress(text, 'regtest');
  return blindingPublicKey === undefined ? { script, unconfidential } : { script, unconfidential, blindingKey: blindingPublicKey };
}
