// Keys, scripts and signed spends for the watcher tests, made with @scure/btc-signer so the chain
// watcher is checked against transactions it did not build itself.
import * as btc from '@scure/btc-signer';
import { secp256k1, schnorr } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';

export const REGTEST: typeof btc.NETWORK = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef };

/** scriptPubKey hex of a regtest address. */
export const scriptOf = (address: string): string =>
  hex.encode(btc.OutScript.encode(btc.Address(REGTEST).decode(address)));

export interface OwnedOutput {
  kind: 'wpkh' | 'tr';
  secretKey: Uint8Array;
  address: string;
  script: Uint8Array;
  scriptHex: string;
  tapInternalKey?: Uint8Array;
}

export function ownedOutput(kind: 'wpkh' | 'tr'): OwnedOutput {
  const secretKey = secp256k1.utils.randomSecretKey();
  if (kind === 'wpkh') {
    const payment = btc.p2wpkh(secp256k1.getPublicKey(secretKey, true), REGTEST);
    return { kind, secretKey, address: payment.address!, script: payment.script, scriptHex: hex.encode(payment.script) };
  }
  const payment = btc.p2tr(schnorr.getPublicKey(secretKey), undefined, REGTEST);
  const { address, script, tapInternalKey } = payment;
  return { kind, secretKey, address: address!, script, scriptHex: hex.encode(script), tapInternalKey };
}

export interface Coin {
  owner: OwnedOutput;
  txid: string;
  vout: number;
  value: bigint;
}

/** A signed transaction spending `coins` to `to` (fee taken from the total); returns it with each input's witness. */
export function spend(coins: Coin[], to: string, fee = 2_000n) {
  const tx = new btc.Transaction();
  for (const coin of coins) {
    tx.addInput({
      txid: coin.txid,
      index: coin.vout,
      witnessUtxo: { script: coin.owner.script, amount: coin.value },
      tapInternalKey: coin.owner.tapInternalKey,
    });
  }
  const total = coins.reduce((sum, coin) => sum + coin.value, 0n);
  tx.addOutputAddress(to, total - fee, REGTEST);
  coins.forEach((coin, index) => tx.signIdx(coin.owner.secretKey, index));
  tx.finalize();
  const witnesses = coins.map((_, index) => tx.getInput(index).finalScriptWitness!.map((item) => hex.encode(item)));
  return { hex: tx.hex, txid: tx.id, witnesses };
}
