// The operator wallet's part of an asset rescue on Liquid (the transaction itself: @ferry/sdk/chains/liquid/
// asset-rescue): one confirmed L-BTC coin of the wallet pays the fee and its change returns to a fresh confidential
// address of the wallet; once the lockup's key-path signature is in, the wallet signs its coin
// (signrawtransactionwithwallet) and the node broadcasts. Coins handed to a rescue not yet broadcast are kept aside
// for a short while, as the reference does, so two rescues at once do not spend the same coin.
import { Transaction } from 'liquidjs-lib';
import { hex } from '@scure/base';
import { TransactionRejected } from '@ferry/sdk/chains/backend.js';
import { AssetRescueError, draftAssetRescue, type AssetRescueDraft } from '@ferry/sdk/chains/liquid/asset-rescue.js';
import { decodeAddress, policyAsset } from '@ferry/sdk/chains/liquid/network.js';
import { finishKeyPathSpend } from '@ferry/sdk/chains/liquid/spends.js';
import type { CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';
import type { Network } from '@ferry/sdk/keys/index.js';

/** What a rescue needs of the Liquid backend besides the operator wallet's RPC. */
export interface RescueChain {
  readonly network: Network;
  feeRate(): Promise<number>;
  ensureBroadcast(txHex: string): Promise<string>;
  blindingKeyOf(script: Uint8Array): { privateKey: Uint8Array };
}

/** How long a coin handed to a rescue stays aside: the reference's 15 seconds. */
const RESERVATION_MS = 15_000;
/** The reference avoids tiny coins: at least 1,000 sat. */
const MIN_FUNDING_SAT = 1_000;

interface WalletCoin {
  txid: string;
  vout: number;
  address: string;
  amount: number;
  asset?: string;
}

export class AssetRescueFunding {
  private readonly reserved = new Map<string, number>();

  constructor(
    private readonly chain: RescueChain,
    private readonly rpc: CoreRpcClient,
  ) {}

  /** Drafts the rescue of the lockup at txid:vout (an output paying `lockupScript`, hex) to `destination`. */
  async draft(lockup: { txid: string; vout: number }, destination: string, lockupScript: string): Promise<AssetRescueDraft> {
    const { network } = this.chain;
    const { rpc } = this;
    let to;
    try {
      to = decodeAddress(destination, network);
    } catch {
      throw new AssetRescueError('invalid destination address');
    }
    let prevout;
    try {
      prevout = Transaction.fromHex(await rpc.getRawTransactionHex(lockup.txid)).outs[lockup.vout];
    } catch {
      throw new AssetRescueError(`could not find transaction ${lockup.txid}`);
    }
    if (prevout === undefined) throw new AssetRescueError('output not found');
    if (hex.encode(prevout.script) !== lockupScript) throw new AssetRescueError("the output is not this swap's lockup");
    const coin = this.reserve(await rpc.call<WalletCoin[]>('listunspent', [1]));
    try {
      const funding = Transaction.fromHex(await rpc.getRawTransactionHex(coin.txid)).outs[coin.vout];
      const fundingKey = hex.decode(await rpc.call<string>('dumpblindingkey', [coin.address]));
      const change = decodeAddress(await rpc.getNewAddress(), network);
      if (change.blindingPublicKey === undefined) throw new Error('the operator wallet gave an unconfidential change address');
      return draftAssetRescue({
        lockup: { ...lockup, prevout, blindingPrivateKey: this.chain.blindingKeyOf(prevout.script).privateKey },
        funding: { txid: coin.txid, vout: coin.vout, prevout: funding, blindingPrivateKey: fundingKey },
        destination: to,
        change: { script: change.script, blindingPublicKey: change.blindingPublicKey },
        feeRate: await this.chain.feeRate(),
        network,
      });
    } catch (error) {
      this.reserved.delete(`${coin.txid}:${coin.vout}`);
      throw error;
    }
  }

  /** Puts the aggregated signature on input 0, has the wallet sign its coin, broadcasts; the rescue's txid. */
  async broadcast(unsignedHex: string, signature: Uint8Array): Promise<string> {
    const withKeyPath = finishKeyPathSpend(unsignedHex, signature).hex;
    const signed = await this.rpc.call<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', [withKeyPath]);
    const funding = Transaction.fromHex(unsignedHex).ins[1];
    this.reserved.delete(`${Buffer.from(funding.hash).reverse().toString('hex')}:${funding.index}`);
    if (!signed.complete) throw new TransactionRejected('signing transaction failed', 0);
    return this.chain.ensureBroadcast(signed.hex);
  }

  private reserve(coins: WalletCoin[]): WalletCoin {
    const now = Date.now();
    for (const [key, until] of this.reserved) if (until <= now) this.reserved.delete(key);
    const asset = policyAsset(this.chain.network);
    const coin = coins.find((c) => c.asset === asset && Math.round(c.amount * 1e8) > MIN_FUNDING_SAT && !this.reserved.has(`${c.txid}:${c.vout}`));
    if (coin === undefined) throw new AssetRescueError('no UTXOs available');
    this.reserved.set(`${coin.txid}:${coin.vout}`, now + RESERVATION_MS);
    return coin;
  }
}
