// ChainBackend for Liquid over Elements' JSON-RPC (elementsd or the devnet's node): Core-family reads and
// broadcasts, the operator's wallet for blinded lockups and sweep addresses, the watcher that unblinds lockups, and
// Taproot (and, for API v1, legacy P2WSH: legacy.ts) swap outputs paid to confidential addresses. Every swap
// lockup is blinded to a key derived from its own script (SLIP-77 under Ferry's master blinding key), so the key is
// re-derived whenever needed and never stored.
import { hex } from '@scure/base';
import { Transaction, type TxOutput } from 'liquidjs-lib';
import type { Network, SwapMusig } from '@ferry/sdk/keys/index.js';
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
import { CoreFamilyBackend } from '../core-backend.ts';
import { LIQUID_FEES, estimateFeeRate } from '@ferry/sdk/chains/core-fees.js';
import { satToBtcText, type CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';
import type { ChainWatcher } from '../watcher/watcher.ts';
import { blindingKeyForScript } from '@ferry/sdk/chains/liquid/blinding.js';
import { deserializeLiquidTree, liquidSwapMusig, liquidSwapOutput, liquidSwapOutputKey, serializeLiquidTree } from '@ferry/sdk/chains/liquid/htlc.js';
import { confidentialAddress, decodeAddress, paymentUriScheme, policyAsset } from '@ferry/sdk/chains/liquid/network.js';
import {
  clientSpendSighash,
  finishKeyPathSpend,
  keyPathDraft,
  legacyClaim,
  legacyRefund,
  scriptPathClaim,
  scriptPathRefund,
  type LiquidDestination,
  type LiquidLockup,
} from '@ferry/sdk/chains/liquid/spends.js';
import { liquidLegacyOutput } from './legacy.ts';
import { AssetRescueFunding } from './asset-rescue.ts';

/** Typical discounted virtual sizes of Liquid's Taproot swap transactions (REFERENCE.md). */
export const LIQUID_SIZES: TypicalSizes = { claim: 181, serverLockup: 269, clientClaim: 193 };
/**
 * Legacy (v1) Liquid swaps spend P2WSH through the redeem script, the rest of the transaction as with Taproot: Ferry's
 * claim witness (<signature> <preimage> <redeem script>, ~215 bytes) is no larger than the Taproot script-path one it
 * replaces, the client's claim carries that witness instead of a 64-byte key-path signature (+~150 weight units).
 */
export const LIQUID_LEGACY_SIZES: TypicalSizes = { claim: 181, serverLockup: 269, clientClaim: 233 };

const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const fromHex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'hex'));

export interface LiquidBackendOptions {
  symbol?: string;
  network: Network;
  /** Bound to the operator's wallet (lockups, sweep addresses); node calls go through it too. */
  rpc: CoreRpcClient;
  watcher: ChainWatcher;
  /** SLIP-77 master blinding key: each lockup is blinded to the key it derives for the lockup's script. */
  masterBlindingKey: Uint8Array;
}

export class LiquidBackend extends CoreFamilyBackend implements ChainBackend {
  readonly symbol: string;
  readonly watcher: ChainWatcher;
  readonly typicalSizes = LIQUID_SIZES;
  readonly legacySizes = LIQUID_LEGACY_SIZES;
  readonly blockSeconds = 60;
  readonly legacyOutputs = true;
  readonly network: Network;
  private readonly masterBlindingKey: Uint8Array;
  /** Rescues of other assets locked by mistake: the operator wallet pays their fee. */
  readonly assetRescue: AssetRescueFunding;

  constructor(options: LiquidBackendOptions) {
    super(options.rpc);
    this.assetRescue = new AssetRescueFunding(this, options.rpc);
    this.symbol = options.symbol ?? 'L-BTC';
    this.network = options.network;
    this.watcher = options.watcher;
    this.masterBlindingKey = options.masterBlindingKey;
  }

  /** The blinding key pair of an output script. */
  blindingKeyOf(script: Uint8Array): { privateKey: Uint8Array; publicKey: Uint8Array } {
    return blindingKeyForScript(this.masterBlindingKey, script);
  }

  feeRate(): Promise<number> {
    return estimateFeeRate(this.rpc, LIQUID_FEES);
  }

  protected txidOf(txHex: string): string {
    return Transaction.fromHex(txHex).getId();
  }

  protected outputIndexOf(txHex: string, script: string): number {
    return Transaction.fromHex(txHex).outs.findIndex((out) => toHex(out.script) === script);
  }

  transactionInputs(txHex: string): TransactionInput[] {
    return Transaction.fromHex(txHex).ins.map((input) => ({
      txid: Buffer.from(input.hash).reverse().toString('hex'),
      vout: input.index,
      sequence: input.sequence,
    }));
  }

  async spentScripts(txHex: string): Promise<string[]> {
    const scripts: string[] = [];
    for (const input of this.transactionInputs(txHex)) {
      try {
        scripts.push(toHex((await this.output(input.txid, input.vout)).script));
      } catch {
        continue; // an input the node does not know
      }
    }
    return scripts;
  }

  /** The confidential address: lockup addresses are stored and looked up in this form. */
  addressOf(scriptHex: string): string {
    const script = fromHex(scriptHex);
    return confidentialAddress(script, this.blindingKeyOf(script).publicKey, this.network);
  }

  paymentUri(address: string, amount: number, label: string): string {
    return `${paymentUriScheme(this.network)}:${address}?amount=${satToBtcText(amount)}&label=${encodeURIComponent(label)}&assetid=${policyAsset(this.network)}`;
  }

  swapOutput(terms: SwapOutputTerms): SwapOutput {
    if (terms.outputKind === 'legacy') {
      const { legacy, outputScript, address } = liquidLegacyOutput(terms, (script) => this.blindingKeyOf(script).publicKey, this.network);
      return { legacy, script: toHex(outputScript), address, blindingKey: toHex(this.blindingKeyOf(outputScript).privateKey) };
    }
    const { tree, outputScript, address } = liquidSwapOutput(terms, (script) => this.blindingKeyOf(script).publicKey, this.network);
    return { tree: serializeLiquidTree(tree), script: toHex(outputScript), address, blindingKey: toHex(this.blindingKeyOf(outputScript).privateKey) };
  }

  musig(signer: SwapSigner): SwapMusig {
    return liquidSwapMusig(signer.servicePrivateKey, [signer.servicePublicKey, signer.clientPublicKey], deserializeLiquidTree(treeOf(signer)));
  }

  async scriptPathClaim(lockup: SwapLockup, signer: SwapSigner, preimage: Uint8Array, feeRate?: number): Promise<SignedTransaction> {
    if (signer.legacy) return signed(legacyClaim({ ...(await this.legacyPath(lockup, signer, feeRate)), preimage }));
    return signed(scriptPathClaim({ ...(await this.scriptPath(lockup, signer, feeRate)), preimage }));
  }

  async scriptPathRefund(lockup: SwapLockup, signer: SwapSigner, timeoutBlockHeight: number, feeRate?: number): Promise<SignedTransaction> {
    if (signer.legacy) return signed(legacyRefund({ ...(await this.legacyPath(lockup, signer, feeRate)), timeoutBlockHeight }));
    return signed(scriptPathRefund({ ...(await this.scriptPath(lockup, signer, feeRate)), timeoutBlockHeight }));
  }

  async keyPathSweep(lockup: SwapLockup): Promise<UnsignedKeyPathSpend> {
    const draft = keyPathDraft({ lockup: await this.spent(lockup), destination: await this.walletDestination(), feeRate: await this.feeRate(), network: this.network });
    return { hex: draft.unsignedHex, sighash: draft.sighash };
  }

  withKeyPathSignature(unsignedHex: string, signature: Uint8Array): SignedTransaction {
    return finishKeyPathSpend(unsignedHex, signature);
  }

  clientSpend(txHex: string, index: number): ClientSpend {
    let tx: Transaction;
    try {
      tx = Transaction.fromHex(txHex);
    } catch {
      throw new ClientTransactionError('unparsable', 'the transaction cannot be parsed');
    }
    checkClientInput(tx.ins.length, index);
    const inputs = this.transactionInputs(txHex);
    return {
      input: { txid: inputs[index].txid, vout: inputs[index].vout },
      sighash: async () => {
        const prevouts: TxOutput[] = [];
        try {
          for (const input of inputs) prevouts.push(await this.output(input.txid, input.vout));
        } catch {
          throw new ClientTransactionError('unknownOutputs', 'could not find the outputs the transaction spends');
        }
        return { script: toHex(prevouts[index].script), sighash: clientSpendSighash(txHex, index, prevouts, this.network) };
      },
    };
  }

  /** An output the node knows (throws otherwise). */
  private async output(txid: string, vout: number): Promise<TxOutput> {
    const output = Transaction.fromHex(await this.rpc.getRawTransactionHex(txid)).outs[vout];
    if (output === undefined) throw new Error(`transaction ${txid} has no output ${vout}`);
    return output;
  }

  /** A swap lockup with what spending it needs: the whole output and the key that unblinds it. */
  private async spent(lockup: SwapLockup): Promise<LiquidLockup> {
    const prevout = await this.output(lockup.txid, lockup.vout);
    return { txid: lockup.txid, vout: lockup.vout, prevout, blindingPrivateKey: this.blindingKeyOf(prevout.script).privateKey };
  }

  private async scriptPath(lockup: SwapLockup, signer: SwapSigner, feeRate?: number) {
    const tree = deserializeLiquidTree(treeOf(signer));
    const { internalKey } = liquidSwapOutputKey(signer.servicePublicKey, signer.clientPublicKey, tree);
    return {
      lockup: await this.spent(lockup),
      tree,
      internalKey,
      privateKey: signer.servicePrivateKey,
      destination: await this.walletDestination(),
      feeRate: feeRate ?? (await this.feeRate()),
      network: this.network,
    };
  }

  private async legacyPath(lockup: SwapLockup, signer: SwapSigner, feeRate?: number) {
    return {
      lockup: await this.spent(lockup),
      redeemScript: hex.decode(signer.legacy!.redeemScript),
      privateKey: signer.servicePrivateKey,
      destination: await this.walletDestination(),
      feeRate: feeRate ?? (await this.feeRate()),
      network: this.network,
    };
  }

  /** A fresh confidential address of the operator wallet to sweep claims and refunds to. */
  private async walletDestination(): Promise<LiquidDestination> {
    const { script, blindingPublicKey } = decodeAddress(await this.rpc.getNewAddress(), this.network);
    return { script, blindingPublicKey };
  }
}

const signed = (built: { txid: string; hex: string }): SignedTransaction => ({ txid: built.txid, hex: built.hex });
