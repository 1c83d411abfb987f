// The elementsregtest chain facts the Elements wallet uses (address prefixes, the L-BTC policy asset) and the one
// shared secp256k1-zkp instance (a WASM module, loaded once) that blinding, proofs and unblinding need.
import { networks, type Secp256k1Interface } from 'liquidjs-lib';
import { REGTEST_POLICY_ASSET } from '../verify/index.ts';
import { loadZkp as loadSharedZkp } from '../verify/zkp.ts';

/**
 * liquidjs-lib's `regtest` is elementsd's `-chain=elementsregtest`: bech32 HRP `ert`, blech32 HRP `el`,
 * P2PKH version 235, P2SH version 75, confidential (base58) prefix 4, WIF 239.
 */
export const ELEMENTS_REGTEST = networks.regtest;

/** The L-BTC policy asset of the devnet's chain (the verifier's constant). */
export const POLICY_ASSET = REGTEST_POLICY_ASSET;

export type Zkp = Secp256k1Interface;

/** The secp256k1-zkp module (ECDH, Pedersen commitments, range and surjection proofs): the verifier's one instance. */
export const loadZkp = (): Promise<Zkp> => loadSharedZkp() as unknown as Promise<Zkp>;
