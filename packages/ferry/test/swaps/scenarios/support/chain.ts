// The devnet's Bitcoin chain as a test observes it, through Core's JSON-RPC only: the scans and mining of
// chain-view.ts, plus wallet balances, fees and unspent values in satoshi.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hash160 } from '@scure/btc-signer/utils.js';
import { Scripts } from 'boltz-core';
import { CoreRpcClient, btcToSat, type DecodedTransaction } from '@ferry/sdk/chains/core-rpc.js';
import type { DevnetInfo } from '@ferry/devnet/index.js';
import { addressOfScript } from '../../../helpers/swap-wallet.ts';
import { ChainView } from './chain-view.ts';

export type { Spend } from './chain-view.ts';

// Blocks the tests mine pay a key nobody keeps.
const burnAddress = addressOfScript(Scripts.p2wpkhOutput(hash160(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true))));

/** What a transaction pays out, in satoshi. */
export const outputSum = (tx: DecodedTransaction): bigint => tx.vout.reduce((sum, output) => sum + btcToSat(output.value), 0n);

export class DevnetChain extends ChainView {
  readonly user: CoreRpcClient;
  readonly operator: CoreRpcClient;

  constructor(info: DevnetInfo) {
    const { rpcUrl, rpcUser, rpcPassword, wallets } = info.bitcoin;
    const rpc = new CoreRpcClient({ url: rpcUrl, user: rpcUser, password: rpcPassword });
    super(rpc, burnAddress);
    this.user = rpc.wallet(wallets.user);
    this.operator = rpc.wallet(wallets.operator);
  }

  /** A wallet's spendable plus pending balance, in satoshi. */
  async balance(wallet: CoreRpcClient): Promise<bigint> {
    const { mine } = await wallet.getBalances();
    return btcToSat(mine.trusted) + btcToSat(mine.untrusted_pending);
  }

  /** Inputs minus outputs, read from the transactions the inputs spend. */
  async fee(txid: string): Promise<bigint> {
    const tx = await this.rpc.getRawTransaction(txid);
    let inputs = 0n;
    for (const input of tx.vin) {
      const previous = await this.rpc.getRawTransaction(input.txid!);
      inputs += btcToSat(previous.vout[input.vout!].value);
    }
    return inputs - outputSum(tx);
  }

  /** Value of an unspent output in satoshi, or undefined when it is spent or unknown. */
  async unspentValue(txid: string, vout: number): Promise<bigint | undefined> {
    const out = await this.rpc.getTxOut(txid, vout, true);
    return out === null ? undefined : btcToSat(out.value);
  }
}
