// The devnet's Elements (Liquid) chain as a test observes it, through elementsd's JSON-RPC only: the scans and
// mining of chain-view.ts on the Elements node, plus L-BTC wallet balances (getbalances lists them by the asset
// label "bitcoin") and fees, which Elements pays in an explicit output and getrawtransaction shows per asset.
import { address, networks } from 'liquidjs-lib';
import { CoreRpcClient, btcToSat, type DecodedTransaction } from '@ferry/sdk/chains/core-rpc.js';
import { BURN_SCRIPT } from '@ferry/devnet/elements/index.js';
import type { DevnetInfo } from '@ferry/devnet/index.js';
import { ChainView } from './chain-view.ts';

export interface ElementsTransaction extends DecodedTransaction {
  /** The explicit fee outputs' sum per asset id, in coins. */
  fee?: Record<string, number>;
}

type AssetAmounts = Record<string, number>;

export class LiquidChain extends ChainView<ElementsTransaction> {
  readonly user: CoreRpcClient;
  readonly operator: CoreRpcClient;

  constructor(info: DevnetInfo) {
    const { rpcUrl, rpcUser, rpcPassword, wallets } = info.elements;
    const rpc = new CoreRpcClient({ url: rpcUrl, user: rpcUser, password: rpcPassword });
    // The devnet's own filler blocks pay this unspendable script (P2WSH of OP_RETURN) too.
    super(rpc, address.fromOutputScript(Buffer.from(BURN_SCRIPT), networks.regtest));
    this.user = rpc.wallet(wallets.user);
    this.operator = rpc.wallet(wallets.operator);
  }

  /** A wallet's spendable plus pending L-BTC, in satoshi. */
  async balance(wallet: CoreRpcClient): Promise<bigint> {
    const { mine } = await wallet.call<{ mine: { trusted: AssetAmounts; untrusted_pending: AssetAmounts } }>('getbalances');
    return btcToSat(mine.trusted.bitcoin ?? 0) + btcToSat(mine.untrusted_pending.bitcoin ?? 0);
  }

  /** The L-BTC fee a transaction pays, in satoshi. */
  async fee(txid: string): Promise<bigint> {
    const { fee } = await this.transaction(txid);
    return Object.entries(fee ?? {}).reduce((sum, [asset, amount]) => (asset === networks.regtest.assetHash ? sum + btcToSat(amount) : sum), 0n);
  }

  async isUnspent(txid: string, vout: number): Promise<boolean> {
    return (await this.rpc.getTxOut(txid, vout, true)) !== null;
  }
}
