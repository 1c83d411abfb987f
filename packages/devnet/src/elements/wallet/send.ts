// One call from coins to a signed confidential transaction: build and blind (build.ts), sign every input with its
// key (P2WPKH, or P2TR key path), finalize (sign.ts). What the devnet's sendtoaddress and send RPCs will run.
import type { Transaction } from 'liquidjs-lib';
import { buildBlindedPset, isP2tr, type BuildRequest, type BuiltOutput, type Coin } from './build.ts';
import type { KeyPair } from './keys.ts';
import { ELEMENTS_REGTEST, type Zkp } from './network.ts';
import { finalizeTransaction, signP2trKeyPathInput, signP2wpkhInput } from './sign.ts';

export interface SpendableCoin extends Coin {
  key: KeyPair; // the key of the coin's script (P2WPKH, or the P2TR internal key)
}

/** Genesis hash Elements' taproot sighash commits to: elementsd's default elementsregtest one (00902a6b…ca21). */
export const DEFAULT_GENESIS_HASH: Uint8Array = new Uint8Array(ELEMENTS_REGTEST.genesisBlockHash);

export interface SignedTransaction {
  tx: Transaction;
  hex: string;
  txid: string;
  outputs: BuiltOutput[];
}

export interface SpendRequest extends Omit<BuildRequest, 'coins'> {
  coins: SpendableCoin[];
  genesisBlockHash?: Uint8Array; // internal byte order; for P2TR coins, default DEFAULT_GENESIS_HASH
}

export function createTransaction(zkp: Zkp, request: SpendRequest): SignedTransaction {
  const { pset, outputs } = buildBlindedPset(zkp, request);
  request.coins.forEach((coin, index) => {
    if (isP2tr(coin.output.script)) {
      signP2trKeyPathInput(zkp, pset, index, coin.key, request.genesisBlockHash ?? DEFAULT_GENESIS_HASH);
    } else {
      signP2wpkhInput(pset, index, coin.key);
    }
  });
  const tx = finalizeTransaction(pset);
  return { tx, hex: tx.toHex(), txid: tx.getId(), outputs };
}
