// The elementsregtest chain facts the Elements wallet uses (address prefixes, the L-BTC policy asset) and the one
// shared secp256k1-zkp instance (a WASM module, loaded once) that blinding, proofs and unblinding need.
import { networks, type Secp256k1Interface } from 'liquidjs-lib';
import zkpModule from '@vulpemventures/secp256k1-zkp';

/**
 * liquidjs-lib's `regtest` is elementsd's `-chain=elementsregtest`: bech32 HRP `ert`, blech32 HRP `el`,
 * P2PKH version 235, P2SH version 75, confidential (base58) prefix 4, WIF 239.
 */
export const ELEMENTS_REGTEST = networks.regtest;

/** The L-BTC policy asset of elementsregtest by default (elementsd's `-feeasset`/`pegged_asset` when none is set). */
export const POLICY_ASSET = '5ac9f65c0efcc4775e0baec4ec03abdde22473cd3cf33c0419ca290e0751b225';

export type Zkp = Secp256k1Interface;

let loading: Promise<Zkp> | undefined;

/** The secp256k1-zkp module (ECDH, Pedersen commitments, range and surjection proofs), instantiated once. */
export function loadZkp(): Promise<Zkp> {
  loading ??= zkpModule.default() as unknown as Promise<Zkp>;
  return loading;
}
