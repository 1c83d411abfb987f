// What differs between the chains a swap's coins live on, from the client's side — one SwapChain per chain
// currency (BTC: Bitcoin, L-BTC: Liquid), picked by the swap's currency: the tree and the Taproot output key,
// addresses, finding and unblinding a lockup, and the claim and refund builders of src/chains/<chain>/. The flows
// (verify, claim, refund, co-sign) are written once over this interface.
import type { TxOutput } from 'liquidjs-lib';
import type { BuiltTransaction, FeeChoice, SwapOutputTerms } from '../../chains/backend.ts';
import type { SwapMusig, TaprootSwapKey } from '../../keys/index.ts';
import type { NetworkName } from '../network.ts';
import type { SwapTree } from '../taproot.ts';
import type { SerializedSwapTree } from '../types.ts';
import { bitcoinChain } from './bitcoin.ts';
import { liquidChain } from './liquid.ts';

/** A swap output found in a transaction, with its value (unblinded on Liquid). */
export interface Lockup {
  txid: string;
  vout: number;
  /** sat */
  value: bigint;
  script: Uint8Array;
  /** Liquid: the output as it is on chain, and the key that unblinds it. */
  prevout?: TxOutput;
  blindingPrivateKey?: Uint8Array;
}

/** Where a claim or refund pays: the script, and on Liquid the blinding key of the confidential address. */
export interface Destination {
  address: string;
  script: Uint8Array;
  blindingPublicKey?: Uint8Array;
}

export interface Spend extends FeeChoice {
  lockup: Lockup;
  destination: Destination;
  network: NetworkName;
}

export interface ScriptSpend extends Spend {
  tree: SwapTree;
  /** x-only MuSig2 aggregate of [service, client], untweaked. */
  internalKey: Uint8Array;
  privateKey: Uint8Array;
}

/** An unsigned key-path spend, the sighash both sides sign (SIGHASH_DEFAULT), and how to finish it. */
export interface KeyPathDraft {
  unsignedHex: string;
  sighash: Uint8Array;
  finish(signature: Uint8Array): BuiltTransaction;
}

export interface SwapChain {
  readonly currency: string;
  /** Lockups are blinded (Liquid): each swap comes with the blindingKey that opens its lockup. */
  readonly confidential: boolean;
  /** The chain's relay floor, sat/vbyte. */
  readonly minFeeRate: number;
  /** BIP21-style payment URIs: their scheme, and the asset they must name. */
  paymentUri(network: NetworkName): { scheme: string; assetId?: string };
  /** An address of this chain and network; throws for anything else. */
  decodeAddress(address: string, network: NetworkName): { script: Uint8Array; blindingPublicKey?: Uint8Array };
  /** The output the service must have built for these terms: tree, script and address (blinded to the key given). */
  swapOutput(terms: SwapOutputTerms, network: NetworkName, blindingPublicKey?: Uint8Array): { tree: SwapTree; outputScript: Uint8Array; address: string };
  /** A tree of this chain (its leaf version) from its serialized form; throws otherwise. */
  parseTree(json: SerializedSwapTree): SwapTree;
  /** The output key of [service, client] tweaked with the tree the way this chain's Taproot does. */
  outputKey(servicePublicKey: Uint8Array, clientPublicKey: Uint8Array, tree: SwapTree): TaprootSwapKey;
  /** MuSig2 of [service, client] with our private key, tweaked likewise. */
  musig(privateKey: Uint8Array, servicePublicKey: Uint8Array, clientPublicKey: Uint8Array, tree: SwapTree): SwapMusig;
  /**
   * The output of `txHex` paying `script`, opened with the blinding key on Liquid (VerificationError when it cannot
   * be, or holds another asset). Asynchronous: Liquid loads secp256k1-zkp here, which the spends below need.
   */
  findLockup(txHex: string, script: Uint8Array, network: NetworkName, blindingKey?: Uint8Array): Promise<Lockup | undefined>;
  keyPathDraft(spend: Spend): KeyPathDraft;
  scriptPathClaim(spend: ScriptSpend & { preimage: Uint8Array }): BuiltTransaction;
  scriptPathRefund(spend: ScriptSpend & { timeoutBlockHeight: number }): BuiltTransaction;
  /**
   * Confidential chains: the refund of a legacy (P2WSH) lockup through its redeem script (Bitcoin's legacy spends are
   * src/chains/bitcoin/spends.ts, which also knows P2SH-P2WSH).
   */
  legacyRefund?(spend: Spend & { redeemScript: Uint8Array; privateKey: Uint8Array; timeoutBlockHeight: number }): BuiltTransaction;
}

const CHAINS: readonly SwapChain[] = [bitcoinChain, liquidChain];

/** The currencies whose swaps the client can do. */
export const SWAP_CURRENCIES: readonly string[] = CHAINS.map((chain) => chain.currency);

export function swapChain(currency: string): SwapChain {
  const chain = CHAINS.find((candidate) => candidate.currency === currency);
  if (chain === undefined) throw new Error(`swaps on ${JSON.stringify(currency)} are not supported (only ${SWAP_CURRENCIES.join(' and ')})`);
  return chain;
}

/**
 * Where a swap of `chain` can pay: an address of its chain and network (on Liquid, a confidential one: a blinded
 * lockup can only be spent to a blinded output). The error says which chain an address of another belongs to.
 */
export function destinationOf(chain: SwapChain, address: string, network: NetworkName): Destination {
  let decoded;
  try {
    decoded = chain.decodeAddress(address, network);
  } catch (error) {
    const other = CHAINS.find((candidate) => candidate !== chain && decodes(candidate, address, network));
    if (other !== undefined) throw new Error(`${address} is ${other.confidential ? 'a Liquid' : 'a Bitcoin'} address, but a swap on ${chain.currency} pays to ${describe(chain)}`);
    throw error;
  }
  if (chain.confidential && decoded.blindingPublicKey === undefined) {
    throw new Error(`${address} is not confidential, but a swap on ${chain.currency} pays to ${describe(chain)}: its lockup is blinded`);
  }
  return { address, ...decoded };
}

const describe = (chain: SwapChain) => (chain.confidential ? 'a confidential Liquid address' : 'a Bitcoin address');

function decodes(chain: SwapChain, address: string, network: NetworkName): boolean {
  try {
    chain.decodeAddress(address, network);
    return true;
  } catch {
    return false;
  }
}
