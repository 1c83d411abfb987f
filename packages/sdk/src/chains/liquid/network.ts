// Liquid's chain facts per Ferry network: liquidjs-lib's network (address prefixes), the genesis block hash that
// Elements' Taproot sighash commits to, the L-BTC asset id, and addresses: confidential (an output script with the
// blinding public key its outputs are blinded to) and unconfidential, to encode and to decode.
import { address, networks, type networks as Networks } from 'liquidjs-lib';
import type { Network } from '../../keys/index.ts';

export type LiquidNetwork = Networks.Network;

/** elementsregtest's default policy asset (L-BTC) and genesis block, which the devnet's Elements node adopts. */
export const REGTEST_POLICY_ASSET = '5ac9f65c0efcc4775e0baec4ec03abdde22473cd3cf33c0419ca290e0751b225';
export const REGTEST_GENESIS_BLOCK_HASH = '00902a6b70c2ca83b5d9c815d96a0e2f4202179316970d14ea1847dae5b1ca21';

/**
 * Liquid mainnet, Liquid testnet (for Ferry's testnet and signet alike), and elementsd's `-chain=elementsregtest`:
 * bech32 HRP `ert`, blech32 HRP `el` (confidential `el1…`), as liquidjs-lib's `regtest` and the devnet use.
 */
const NETWORKS: Record<Network, LiquidNetwork> = {
  mainnet: networks.liquid,
  testnet: networks.testnet,
  signet: networks.testnet,
  regtest: {
    ...networks.regtest,
    assetHash: REGTEST_POLICY_ASSET,
    genesisBlockHash: Buffer.from(REGTEST_GENESIS_BLOCK_HASH, 'hex').reverse(),
  },
};

export const liquidNetwork = (network: Network): LiquidNetwork => NETWORKS[network];

/** The genesis block hash as elementsd displays it (getblockhash 0). */
export const genesisBlockHash = (network: Network): string => Buffer.from(NETWORKS[network].genesisBlockHash).reverse().toString('hex');

/** The L-BTC asset id as elementsd displays it. */
export const policyAsset = (network: Network): string => NETWORKS[network].assetHash;

/** The scheme of Liquid payment URIs (BIP21-style): `liquidnetwork` on mainnet, `liquidtestnet` elsewhere. */
export const paymentUriScheme = (network: Network): string => (network === 'mainnet' ? 'liquidnetwork' : 'liquidtestnet');

/** The unconfidential address of a script; throws for a script no address stands for. */
export const unconfidentialAddress = (script: Uint8Array, network: Network): string =>
  address.fromOutputScript(Buffer.from(script), NETWORKS[network]);

/** The confidential address of a script whose outputs are blinded to this 33-byte blinding public key. */
export const confidentialAddress = (script: Uint8Array, blindingPublicKey: Uint8Array, network: Network): string =>
  address.toConfidential(unconfidentialAddress(script, network), Buffer.from(blindingPublicKey));

export interface DecodedAddress {
  script: Uint8Array;
  unconfidential: string;
  /** 33-byte blinding public key, only in a confidential address. */
  blindingPublicKey?: Uint8Array;
}

/** Either form of an address of `network`; throws "Invalid address" for anything else (another network's too). */
export function decodeAddress(text: string, network: Network): DecodedAddress {
  const params = NETWORKS[network];
  try {
    if (address.isConfidential(text)) {
      const { unconfidentialAddress: plain, blindingKey } = address.fromConfidential(text);
      const script = new Uint8Array(address.toOutputScript(plain, params));
      return { script, unconfidential: plain, blindingPublicKey: new Uint8Array(blindingKey) };
    }
    return { script: new Uint8Array(address.toOutputScript(text, params)), unconfidential: text };
  } catch {
    throw new Error('Invalid address');
  }
}
