// The devnet's Bitcoin chain as a test observes it, through Core's JSON-RPC only: mining (to an address no
// wallet owns, so no wallet balance moves by accident), wallet balances, fees and who spent an output.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { hash160 } from '@scure/btc-signer/utils.js';
import { Scripts } from 'boltz-core';
import { CoreRpcClient, btcToSat, type DecodedTransaction } from '../../../../src/chains/core-rpc.ts';
import type { DevnetInfo } from '../../../../src/devnet/index.ts';
import { addressOfScript } from '../../../helpers/swap-wallet.ts';


// Blocks the tests mine pay a key nobody keeps.
const burnAddress = addressOfScript(Scripts.p2wpkhOutput(hash160(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true))));

export interface Spend {
  txid: string;
  /** Witness stack of the spending input, hex. */
  witness: string[];
  /** Height of the block holding the spend; undefined while it is in the mempool. */
  height: number | undefined;
  tx: DecodedTransaction;
}

/** What a transaction pays out, in satoshi. */
export const outputSum = (tx: DecodedTransaction): bigint => tx.vout.reduce((sum, output) => sum + btcToSat(output.value), 0n);

export class DevnetChain {
  readonly rpc: CoreRpcClient;
  readonly user: CoreRpcClient;
  readonly operator: CoreRpcClient;

  constructor(info: DevnetInfo) {
    const { rpcUrl, rpcUser, rpcPassword, wallets } = info.bitcoin;
    this.rpc = new CoreRpcClient({ url: rpcUrl, user: rpcUser, password: rpcPassword });
    this.user = this.rpc.wallet(wallets.user);
    this.operator = this.rpc.wallet(wallets.operator);
  }

  height(): Promise<number> {
    return this.rpc.getBlockCount();
  }

  async mine(blocks = 1): Promise<number> {
    await this.rpc.generateToAddress(blocks, burnAddress);
    return this.height();
  }

  /** Mines until the tip is exactly `height` (no-op when it is already there or beyond). */
  async mineTo(height: number): Promise<number> {
    const tip = await this.height();
    return height > tip ? this.mine(height - tip) : tip;
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

  async confirmations(txid: string): Promise<number> {
    const tx = (await this.rpc.getRawTransaction(txid)) as DecodedTransaction & { confirmations?: number };
    return tx.confirmations ?? 0;
  }

  /** Every transaction in blocks fromHeight..tip and in the mempool that spends txid:vout. */
  async spendsOf(txid: string, vout: number, fromHeight: number): Promise<Spend[]> {
    const spends: Spend[] = [];
    const match = (tx: DecodedTransaction, height: number | undefined) => {
      const input = tx.vin.find((i) => i.txid === txid && i.vout === vout);
      if (input) spends.push({ txid: tx.txid, witness: input.txinwitness ?? [], height, tx });
    };
    const tip = await this.height();
    for (let height = fromHeight; height <= tip; height++) {
      const block = await this.rpc.getBlockVerbose(await this.rpc.getBlockHash(height));
      for (const tx of block.tx) match(tx, height);
    }
    for (const id of await this.rpc.getRawMempool()) match(await this.rpc.getRawTransaction(id), undefined);
    return spends;
  }

  /** Every transaction in blocks fromHeight..tip and in the mempool with an output paying `script`. */
  async paymentsTo(script: Uint8Array, fromHeight: number): Promise<DecodedTransaction[]> {
    const scriptHex = hex.encode(script);
    const found: DecodedTransaction[] = [];
    const match = (tx: DecodedTransaction) => {
      if (tx.vout.some((o) => o.scriptPubKey.hex === scriptHex)) found.push(tx);
    };
    const tip = await this.height();
    for (let height = fromHeight; height <= tip; height++) {
      const block = await this.rpc.getBlockVerbose(await this.rpc.getBlockHash(height));
      for (const tx of block.tx) match(tx);
    }
    for (const id of await this.rpc.getRawMempool()) match(await this.rpc.getRawTransaction(id));
    return found;
  }

  /** Value of an unspent output in satoshi, or undefined when it is spent or unknown. */
  async unspentValue(txid: string, vout: number): Promise<bigint | undefined> {
    const out = await this.rpc.getTxOut(txid, vout, true);
    return out === null ? undefined : btcToSat(out.value);
  }
}
