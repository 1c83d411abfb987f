// The elementsregtest chain facts the Elements wallet uses (address prefixes, the L-BTC policy asset) and the one
// shared secp256k1-zkp instance (a WASM module, loaded once) that blinding, proofs and unblinding need.
import type { Secp256k1Interface } from 'liquidjs-lib';
import { REGTEST_POLICY_ASSET, liquidNetwork } from '@ferry/sdk/chains/liquid/network.js';
import { loadZkp as loadSharedZkp } from '@ferry/sdk/chains/liquid/zkp.js';

/**
 * Ferry's Liquid regtest network, liquidjs-lib's `regtest`: elementsd's `-chain=elementsregtest`, bech32 HRP `ert`,
 * blech32 HRP `el`, P2PKH version 235, P2SH version 75, confidential (base58) prefix 4, WIF 239.
 */
export const ELEMENTS_REGTEST = liquidNetwork('regtest');

/** The L-BTC policy asset of the devnet's chain. */
export const POLICY_ASSET = REGTEST_POLICY_ASSET;

export type Zkp = Secp256k1Interface;

/** The secp256k1-zkp module (ECDH, Pedersen commitments, range and surjection proofs): the one shared instance. */
export const loadZkp = (): Promise<Zkp> => loadSharedZkp() as unknown as Promise<Zkp>;
