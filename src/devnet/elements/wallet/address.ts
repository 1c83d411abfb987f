// elementsregtest addresses: an output script with an optional blinding public key, as the confidential
// address (blech32 `el1…`, or base58 with prefix 4) and the unconfidential one (bech32 `ert1…`, base58).
import { address } from 'liquidjs-lib';
import { ELEMENTS_REGTEST } from './network.ts';

export interface DecodedAddress {
  script: Uint8Array;
  unconfidential: string;
  blindingKey?: Uint8Array; // 33-byte blinding public key, only in a confidential address
}

/** The unconfidential address of a script; throws for a script no address stands for. */
export const unconfidentialAddress = (script: Uint8Array): string =>
  address.fromOutputScript(Buffer.from(script), ELEMENTS_REGTEST);

/** The confidential address of a script paid with this blinding public key. */
export const confidentialAddress = (script: Uint8Array, blindingKey: Uint8Array): string =>
  address.toConfidential(unconfidentialAddress(script), Buffer.from(blindingKey));

/** Either form of an elementsregtest address; throws "Invalid address" for anything else (another network too). */
export function decodeAddress(text: string): DecodedAddress {
  try {
    if (address.isConfidential(text)) {
      const { unconfidentialAddress: plain, blindingKey } = address.fromConfidential(text);
      const script = new Uint8Array(address.toOutputScript(plain, ELEMENTS_REGTEST));
      return { script, unconfidential: plain, blindingKey: new Uint8Array(blindingKey) };
    }
    return { script: new Uint8Array(address.toOutputScript(text, ELEMENTS_REGTEST)), unconfidential: text };
  } catch {
    throw new Error('Invalid address');
  }
}
