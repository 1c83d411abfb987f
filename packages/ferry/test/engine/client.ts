// The wallet side of swaps, done the way Boltz wallets do it with boltz-core: check the swap tree and address,
// MuSig2 partial signatures, cooperative claims and refunds.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { randomBytes } from '@noble/hashes/utils.js';
import { hex } from '@scure/base';
import { Address, OutScript, SigHash } from '@scure/btc-signer';
import {
  Musig,
  Networks,
  OutputType,
  Scripts,
  SwapTreeSerializer,
  TaprootUtils,
  constructClaimTransaction,
  constructRefundTransaction,
  type Types,
} from 'boltz-core';
import type { SwapTreeJson } from '../../src/engine/index.ts';
import { p2wpkhScript, type KeyPair } from '../helpers/htlc.ts';
import { parseTransaction } from '@ferry/sdk/chains/bitcoin/htlc.js';

export function newKeyPair(): KeyPair {
  const privateKey = randomBytes(32);
  return { privateKey, publicKey: secp256k1.getPublicKey(privateKey, true) };
}

export function newPreimage(): { preimage: Uint8Array; preimageHash: string } {
  const preimage = randomBytes(32);
  return { preimage, preimageHash: hex.encode(sha256(preimage)) };
}

/** What a wallet recomputes from a creation response: the tree, the lockup script and address. */
export function lockupOf(tree: SwapTreeJson, serviceKey: string, client: KeyPair) {
  const swapTree = SwapTreeSerializer.deserializeSwapTree(tree) as Types.SwapTree;
  const keys = [hex.decode(serviceKey), client.publicKey];
  const tweaked = TaprootUtils.tweakMusig(Musig.create(client.privateKey, keys), swapTree.tree);
  const script = Scripts.p2trOutput(tweaked.aggPubkey);
  return { swapTree, keys, script, address: Address(Networks.regtest).encode(OutScript.decode(script)) };
}

export function findOutput(txHex: string, script: Uint8Array): { vout: number; value: bigint } {
  const tx = parseTransaction(txHex);
  for (let vout = 0; vout < tx.outputsLength; vout++) {
    const output = tx.getOutput(vout);
    if (output.script !== undefined && hex.encode(output.script) === hex.encode(script)) return { vout, value: output.amount! };
  }
  throw new Error('output not found');
}

/** The client's MuSig2 session for one message: its nonce now, its partial signature once it has Ferry's nonce. */
export function clientSession(client: KeyPair, keys: Uint8Array[], swapTree: Types.SwapTree, message: Uint8Array) {
  const withNonce = TaprootUtils.tweakMusig(Musig.create(client.privateKey, keys), swapTree.tree).message(message).generateNonce();
  return {
    pubNonce: hex.encode(withNonce.publicNonce),
    /** Client signs after seeing Ferry's nonce; returns its partial signature. */
    sign(serviceNonce: string): string {
      return hex.encode(withNonce.aggregateNonces([[keys[0], hex.decode(serviceNonce)]]).initializeSession().signPartial().ourPartialSignature);
    },
    /** Client aggregates Ferry's partial signature with its own into the key-path signature. */
    aggregate(serviceNonce: string, servicePartial: string): Uint8Array {
      return withNonce
        .aggregateNonces([[keys[0], hex.decode(serviceNonce)]])
        .initializeSession()
        .signPartial()
        .addPartial(keys[0], hex.decode(servicePartial))
        .aggregatePartials();
    },
  };
}

export interface KeyPathSpend {
  destination: Uint8Array;
  amount: bigint;
  /** The unsigned transaction to hand to Ferry. */
  unsignedHex: string;
  sighash: Uint8Array;
  /** The transaction with the aggregated signature, ready to broadcast. */
  finish(signature: Uint8Array): string;
}

/** A one-input key-path spend of a swap output to a fresh P2WPKH of `owner` (claims and refunds alike). */
export function keyPathSpend(
  kind: 'claim' | 'refund',
  lockup: { txid: string; vout: number; value: bigint; script: Uint8Array },
  owner: KeyPair,
  fee = 500n,
): KeyPathSpend {
  const destination = p2wpkhScript(owner.publicKey);
  const details = {
    type: OutputType.Taproot as const,
    cooperative: true,
    transactionId: lockup.txid,
    vout: lockup.vout,
    script: lockup.script,
    amount: lockup.value,
    privateKey: owner.privateKey,
  };
  const tx =
    kind === 'claim'
      ? constructClaimTransaction([{ ...details, preimage: new Uint8Array(32) }], destination, fee)
      : constructRefundTransaction([details], destination, 0, fee, true);
  const sighash = tx.preimageWitnessV1(0, [lockup.script], SigHash.DEFAULT, [lockup.value]);
  return {
    destination,
    amount: lockup.value - fee,
    unsignedHex: hex.encode(tx.toBytes(true, true)),
    sighash,
    finish(signature) {
      tx.updateInput(0, { finalScriptWitness: [signature] }, true);
      return hex.encode(tx.toBytes(true, true));
    },
  };
}
