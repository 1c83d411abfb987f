// Contract between the devnet node and its script verifier (bitcore-lib's interpreter).
// Implementation lives beside this file; the node calls only this function.

export interface Prevout {
  script: Uint8Array; // scriptPubKey of the spent output
  value: bigint; // satoshi
}

export type ScriptCheck =
  | { ok: true }
  // reason uses Bitcoin Core's reject text, e.g.
  // 'mandatory-script-verify-flag-failed (Script failed an OP_EQUALVERIFY operation)'
  | { ok: false; inputIndex: number; reason: string };

export { verifyTransactionScripts } from './verifier.ts';
