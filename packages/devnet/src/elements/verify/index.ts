// Contract between the devnet's future Elements regtest node and its transaction verifier: what the
// node hands over (the transaction and the outputs it spends) and what it gets back.

/** The output an input spends, as stored in the node's UTXO set. */
export type ElementsPrevout =
  | {
      script: Uint8Array; // scriptPubKey
      value: bigint; // explicit amount, satoshi
      asset: string; // explicit asset id, hex as elementsd displays it (byte-reversed)
    }
  | {
      script: Uint8Array;
      valueCommitment: Uint8Array; // 33 bytes, 0x08/0x09 ‖ x
      assetCommitment: Uint8Array; // 33 bytes, 0x0a/0x0b ‖ x
      nonce?: Uint8Array; // ECDH nonce of the output; no check reads it
    };

export interface VerifyOptions {
  /** Taproot sighashes commit to the chain's genesis block hash (hex as displayed). */
  genesisBlockHash?: string;
}

export type ElementsCheck =
  | { ok: true }
  // reason: elementsd's reject reason, e.g. 'bad-txns-in-ne-out' or
  // 'mandatory-script-verify-flag-failed (Script failed an OP_EQUALVERIFY operation)'.
  // detail: elementsd's debug message where it has one, else which devnet check failed (elementsd
  // says only 'value in != value out' for every amount-proof failure).
  | { ok: false; inputIndex?: number; reason: string; detail?: string };

/** elementsregtest's default policy asset (L-BTC) and genesis block, which the devnet adopts (Ferry's Liquid regtest). */
export { REGTEST_GENESIS_BLOCK_HASH, REGTEST_POLICY_ASSET } from '@ferry/sdk/chains/liquid/network.js';

export { verifyElementsTransaction } from './verifier.ts';
