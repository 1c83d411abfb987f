// One call from coins to a signed confidential transaction: build and blind (build.ts), sign every P2WPKH input
// with its key, finalize (sign.ts). What the devnet's sendtoaddress and send RPCs will run.
import type { Transaction } from 'liquidjs-lib';
import { buildBlindedPset, type BuildRequest, type BuiltOutput, type Coin } from './build.ts';
import type { KeyPair } from './keys.ts';
import type { Zkp } from './network.ts';
import { finalizeTransaction, signP2wpkhInput } from './sign.ts';

export interface SpendableCoin extends Coin {
  key: KeyPair; // the P2WPKH key of the coin's script
}

export interface SignedTransaction {
  tx: Transaction;
  hex: string;
  txid: string;
  outputs: BuiltOutput[];
}

export function createTransaction(zkp: Zkp, request: Omit<BuildRequest, 'coins'> & { coins: SpendableCoin[] }): SignedTransaction {
  const { pset, outputs } = buildBlindedPset(zkp, request);
  request.coins.forEach((coin, index) => signP2wpkhInput(pset, index, coin.key));
  const tx = finalizeTransaction(pset);
  return { tx, hex: tx.toHex(), txid: tx.getId(), outputs };
}
