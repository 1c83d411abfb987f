// ChainBackend for Bitcoin over Bitcoin Core's JSON-RPC: the node for chain data and broadcasts, the operator's
// wallet for lockups and sweep addresses, the watcher for lockups and spends, and Taproot swap transactions.
import { hex } from '@scure/base';
import { SigHash } from '@scure/btc-signer';
import { bitcoinSwapMusig, type Network, type SwapMusig } from '@ferry/sdk/keys/index.js';
import { minerFee } from '../../swaps/amounts.ts';
import { TYPICAL_VSIZE } from '../../swaps/pairs.ts';
import {
  ClientTransactionError,
  checkClientInput,
  treeOf,
  type ChainBackend,
  type ClientSpend,
  type SignedTransaction,
  type SwapLockup,
  type SwapOutput,
  type SwapOutputTerms,
  type SwapSigner,
  type TransactionInput,
  type TypicalSizes,
  type UnsignedKeyPathSpend,
} from '@ferry/sdk/chains/backend.js';
import { estimateFeeRate } from '@ferry/sdk/chains/core-fees.js';
import {
  buildSwapOutput,
  claimThroughScript,
  deserializeTree,
  keyPathSweep,
  parseTransaction,
  refundThroughScript,
  serializeTree,
  withKeyPathSignature,
} from '@ferry/sdk/chains/bitcoin/htlc.js';
import { buildLegacyOutput, legacyClaimOf, legacyRefundOf } from './legacy.ts';
import { addressOf, scriptOf } from './network.ts';
import { satToBtcText, type CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';
import { CoreFamilyBackend } from '../core-backend.ts';
import type { ChainWatcher } from '../watcher/watcher.ts';

/** Typical virtual sizes of Taproot swap transactions on Bitcoin (REFERENCE.md). */
export const BITCOIN_SIZES: TypicalSizes = {
  claim: TYPICAL_VSIZE.claim,
  serverLockup: TYPICAL_VSIZE.reverseLockup,
  clientClaim: TYPICAL_VSIZE.reverseClaim,
};

/**
 * Typical virtual sizes of legacy swap transactions on Bitcoin, measured on the transactions Ferry and boltz-core
 * build (test/chains/legacy-sizes.test.ts): Ferry's claim of a P2SH-nested P2WSH lockup with <signature> <preimage>
 * <redeem script> (182 vB to a Taproot destination), its wallet's lockup to a P2WSH output (as large as to a Taproot
 * one), and the client's claim of the P2WSH reverse lockup (148 vB).
 */
export const BITCOIN_LEGACY_SIZES: TypicalSizes = { claim: 182, serverLockup: TYPICAL_VSIZE.reverseLockup, clientClaim: 148 };

export interface BitcoinBackendOptions {
  symbol?: string;
  network: Network;
  /** Bound to the operator's wallet (lockups, sweep addresses); node calls go through it too. */
  rpc: CoreRpcClient;
  watcher: ChainWatcher;
  /** Replaces the node's fee estimate (sat/vbyte), e.g. to pin fees in tests. */
  feeEstimator?: () => Promise<number>;
}

export class BitcoinBackend extends CoreFamilyBackend implements ChainBackend {
  readonly symbol: string;
  readonly watcher: ChainWatcher;
  readonly typicalSizes = BITCOIN_SIZES;
  readonly legacySizes = BITCOIN_LEGACY_SIZES;
  readonly blockSeconds = 600;
  readonly legacyOutputs = true;
  readonly network: Network;
  private readonly estimator?: () => Promise<number>;

  constructor(options: BitcoinBackendOptions) {
    super(options.rpc);
    this.symbol = options.symbol ?? 'BTC';
    this.network = options.network;
    this.watcher = options.watcher;
    this.estimator = options.feeEstimator;
  }

  feeRate(): Promise<number> {
    return this.estimator ? this.estimator() : estimateFeeRate(this.rpc);
  }

  protected txidOf(txHex: string): string {
    return parseTransaction(txHex).id;
  }

  protected outputIndexOf(txHex: string, script: string): number {
    const tx = parseTransaction(txHex);
    for (let vout = 0; vout < tx.outputsLength; vout++) {
      const output = tx.getOutput(vout).script;
      if (output !== undefined && hex.encode(output) === script) return vout;
    }
    return -1;
  }

  transactionInputs(txHex: string): TransactionInput[] {
    const tx = parseTransaction(txHex);
    return Array.from({ length: tx.inputsLength }, (_, i) => {
      const input = tx.getInput(i);
      return { txid: hex.encode(input.txid!), vout: input.index!, sequence: input.sequence ?? 0xffffffff };
    });
  }

  async spentScripts(txHex: string): Promise<string[]> {
    const scripts: string[] = [];
    for (const input of this.transactionInputs(txHex)) {
      let previous;
      try {
        previous = parseTransaction(await this.rpc.getRawTransactionHex(input.txid));
      } catch {
        continue; // an input the node does not know
      }
      const script = previous.getOutput(input.vout)?.script;
      if (script !== undefined) scripts.push(hex.encode(script));
    }
    return scripts;
  }

  addressOf(scriptHex: string): string {
    return addressOf(this.network, hex.decode(scriptHex));
  }

  paymentUri(address: string, amount: number, label: string): string {
    return `bitcoin:${address}?amount=${satToBtcText(amount)}&label=${encodeURIComponent(label)}`;
  }

  swapOutput(terms: SwapOutputTerms): SwapOutput {
    if (terms.outputKind === 'legacy') {
      const { legacy, outputScript } = buildLegacyOutput(terms);
      return { legacy, script: hex.encode(outputScript), address: addressOf(this.network, outputScript) };
    }
    const { tree, outputScript } = buildSwapOutput(terms);
    return { tree: serializeTree(tree), script: hex.encode(outputScript), address: addressOf(this.network, outputScript) };
  }

  musig(signer: SwapSigner): SwapMusig {
    return bitcoinSwapMusig(signer.servicePrivateKey, [signer.servicePublicKey, signer.clientPublicKey], deserializeTree(treeOf(signer)));
  }

  async scriptPathClaim(lockup: SwapLockup, signer: SwapSigner, preimage: Uint8Array, feeRate?: number): Promise<SignedTransaction> {
    const rate = feeRate ?? (await this.feeRate());
    if (signer.legacy) return legacyClaimOf(lockup, { ...signer, legacy: signer.legacy }, preimage, await this.walletScript(), rate);
    const fee = minerFee(rate, BITCOIN_SIZES.claim);
    return claimThroughScript(lockup, signer, preimage, await this.walletScript(), fee);
  }

  async scriptPathRefund(lockup: SwapLockup, signer: SwapSigner, timeoutBlockHeight: number, feeRate?: number): Promise<SignedTransaction> {
    const rate = feeRate ?? (await this.feeRate());
    if (signer.legacy) return legacyRefundOf(lockup, { ...signer, legacy: signer.legacy }, timeoutBlockHeight, await this.walletScript(), rate);
    const fee = minerFee(rate, BITCOIN_SIZES.claim);
    return refundThroughScript(lockup, signer, timeoutBlockHeight, await this.walletScript(), fee);
  }

  async keyPathSweep(lockup: SwapLockup): Promise<UnsignedKeyPathSpend> {
    const fee = minerFee(await this.feeRate(), BITCOIN_SIZES.clientClaim);
    return keyPathSweep(lockup, await this.walletScript(), fee);
  }

  withKeyPathSignature(unsignedHex: string, signature: Uint8Array): SignedTransaction {
    return withKeyPathSignature(unsignedHex, signature);
  }

  clientSpend(txHex: string, index: number): ClientSpend {
    let tx;
    try {
      tx = parseTransaction(txHex);
    } catch {
      throw new ClientTransactionError('unparsable', 'the transaction cannot be parsed');
    }
    checkClientInput(tx.inputsLength, index);
    const input = tx.getInput(index);
    return {
      input: { txid: hex.encode(input.txid!), vout: input.index! },
      sighash: async () => {
        const scripts: Uint8Array[] = [];
        const amounts: bigint[] = [];
        const cache = new Map<string, ReturnType<typeof parseTransaction>>();
        try {
          for (let i = 0; i < tx.inputsLength; i++) {
            const spent = tx.getInput(i);
            const txid = hex.encode(spent.txid!);
            let previous = cache.get(txid);
            if (previous === undefined) {
              previous = parseTransaction(await this.rpc.getRawTransactionHex(txid));
              cache.set(txid, previous);
            }
            const output = previous.getOutput(spent.index!);
            if (output.script === undefined || output.amount === undefined) throw new Error(`input ${i} spends an unknown output`);
            scripts.push(output.script);
            amounts.push(output.amount);
          }
        } catch {
          throw new ClientTransactionError('unknownOutputs', 'could not find the outputs the transaction spends');
        }
        return { script: hex.encode(scripts[index]), sighash: tx.preimageWitnessV1(index, scripts, SigHash.DEFAULT, amounts) };
      },
    };
  }

  /** A fresh operator-wallet output script to sweep claims and refunds to. */
  private async walletScript(): Promise<Uint8Array> {
    return scriptOf(this.network, await this.rpc.getNewAddress('', 'bech32'));
  }
}
