// Assertions the scenarios share, on either chain: status order as heard on the WebSocket, the shape of a spend's
// witness, which tells a key-path spend (one 64-byte Schnorr signature) from a script-path one, a lockup's only
// spend, Ferry's refusals (a refund it must not sign, a refund too early, a wrong preimage) and Lightning balances.
import assert from 'node:assert/strict';
import type { ApiAnswer, SwapApi, SwapApiError } from '../../../helpers/swap-api.ts';
import type { Spend } from './chain-view.ts';
import type { ChannelBalance, NodeName } from './lightning.ts';
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

/** `spends` holds exactly one spend — the transaction `txid`, when given — and it confirmed; returns it. */
export function assertOnlySpend<S extends Spend>(spends: S[], txid?: string): S {
  assert.equal(spends.length, 1, `the lockup is spent exactly once: ${JSON.stringify(spends.map((s) => s.txid))}`);
  if (txid !== undefined) assert.equal(spends[0].txid, txid, "the wallet's transaction is the lockup's only spend");
  assert.ok(spends[0].height !== undefined, 'the spend confirmed');
  return spends[0];
}

/** Ferry refuses to co-sign a refund of a swap it has paid. */
export async function assertRefundRefused(attempt: Promise<unknown>): Promise<void> {
  await assert.rejects(attempt, (error: SwapApiError) => {
    assert.equal(error.status, 400);
    assert.match(error.body.error, /^swap not eligible for a cooperative refund/);
    return true;
  });
}

/** A refund broadcast one block before the timeout: refused as non-final, naming the timeout and when it comes. */
export function assertNonFinal(answer: ApiAnswer, timeoutBlockHeight: number, blockSeconds: number): void {
  assert.equal(answer.status, 400, JSON.stringify(answer.body));
  assert.match(answer.body.error, /non-final/);
  assert.equal(answer.body.timeoutBlockHeight, timeoutBlockHeight);
  const eta = answer.body.timeoutEta - Date.now() / 1000;
  assert.ok(eta > blockSeconds / 2 && eta < blockSeconds * 1.5, `timeoutEta one block (${blockSeconds} s) ahead, got ${eta} s`);
}

/** A reverse swap's claim with a wrong preimage is refused and settles nothing. */
export async function assertWrongPreimageRefused(world: World, api: SwapApi, swapId: string, paymentHash: string): Promise<void> {
  const wrong = await api.call('POST', `/v2/swap/reverse/${swapId}/claim`, { preimage: 'ab'.repeat(32) });
  assert.equal(wrong.status, 400, JSON.stringify(wrong.body));
  assert.equal((await world.lightning.invoice('ferry', paymentHash)).state, 'ACCEPTED');
}

/**
 * `amountSat` moved once over Lightning from `payer` to `payee` since `before` (the channel balances then), the
 * payer paying `feeMsat` on top.
 */
export async function assertLightningMoved(
  world: World,
  payer: NodeName,
  payee: NodeName,
  before: Record<string, ChannelBalance>,
  amountSat: number,
  feeMsat = 0n,
): Promise<void> {
  const [payerAfter, payeeAfter] = await Promise.all([world.lightning.balance(payer), world.lightning.balance(payee)]);
  const amountMsat = BigInt(amountSat) * 1000n;
  assert.equal(before[payer].localMsat - payerAfter.localMsat, amountMsat + feeMsat, `${payer}'s balance went down once`);
  assert.equal(payeeAfter.localMsat - before[payee].localMsat, amountMsat, `${payee} received the amount once`);
}
