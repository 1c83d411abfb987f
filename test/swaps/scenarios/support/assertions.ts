// Assertions the scenarios share: status order as heard on the WebSocket, and the shape of a spend's witness,
// which tells a key-path spend (one 64-byte Schnorr signature) from a script-path one.
import assert from 'node:assert/strict';
import type { Spend } from './chain.ts';
import type { World } from './world.ts';

/** `expected` appears in `heard` in this order (other statuses may come between). */
export function assertStatusOrder(heard: string[], expected: string[]): void {
  let at = 0;
  for (const status of heard) if (status === expected[at]) at++;
  assert.equal(at, expected.length, `statuses ${JSON.stringify(heard)} do not contain ${JSON.stringify(expected)} in order`);
}

/** Key path: the witness is one SIGHASH_DEFAULT Schnorr signature. */
export function assertKeyPath(spend: Spend): void {
  assert.equal(spend.witness.length, 1, `key-path witness has one element: ${JSON.stringify(spend.witness)}`);
  assert.equal(spend.witness[0].length, 128, 'a 64-byte signature (SIGHASH_DEFAULT)');
}

/** Claim leaf: <signature> <preimage> <claim script> <control block>. */
export function assertScriptPathClaim(spend: Spend, preimageHex: string, claimLeafHex: string): void {
  assert.equal(spend.witness.length, 4, `script-path claim witness: ${JSON.stringify(spend.witness)}`);
  assert.equal(spend.witness[1], preimageHex, 'the preimage is revealed on chain');
  assert.equal(spend.witness[2], claimLeafHex, 'spent through the claim leaf');
}

/** Refund leaf: <signature> <refund script> <control block>. */
export function assertScriptPathRefund(spend: Spend, refundLeafHex: string): void {
  assert.equal(spend.witness.length, 3, `script-path refund witness: ${JSON.stringify(spend.witness)}`);
  assert.equal(spend.witness[1], refundLeafHex, 'spent through the refund leaf');
}

/** Runs a scenario step; on failure the error carries Ferry's recent warnings and errors. */
export async function withFerryLog<T>(world: World, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const tail = world.log.slice(-40).join('\n');
    if (error instanceof Error && tail) error.message += `\n--- Ferry log (warn+) ---\n${tail}`;
    throw error;
  }
}
