// Shared moves of the adversarial engine tests: invoices from alice, coins of the test wallet key spent exactly as
// a test wants (amounts, lock times, several outputs), refusals checked by status and text, and polling.
import { httpStatusOf } from '../../src/api/http/errors.ts';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { SwapError } from '../../src/engine/index.ts';
import { rest } from '../lightning/helpers.ts';
import { addressOf, p2wpkhScript, spendP2wpkh, walletKey, type FundingOutput } from '../helpers/htlc.ts';
import { findOutput } from './client.ts';
import type { World } from './world.ts';

export async function aliceInvoice(world: World, sat: number): Promise<{ invoice: string; hash: string }> {
  const { body } = await rest<{ payment_request: string; r_hash: string }>(world.devnet.info.lightning.alice, 'POST', '/v1/invoices', {
    value: sat,
    memo: 'adversarial test',
  });
  return { invoice: body.payment_request, hash: Buffer.from(body.r_hash, 'base64').toString('hex') };
}

export async function aliceInvoiceState(world: World, hash: string): Promise<{ state: string; amt_paid_sat: string }> {
  return (await rest<{ state: string; amt_paid_sat: string }>(world.devnet.info.lightning.alice, 'GET', `/v1/invoice/${hash}`)).body;
}

/** Asserts a SwapError with this HTTP status and text (or pattern). */
export async function rejects(promise: Promise<unknown>, status: number, message: string | RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof SwapError, String(error));
    assert.equal(httpStatusOf(error), status, error.message);
    if (typeof message === 'string') assert.equal(error.message, message);
    else assert.match(error.message, message);
    return true;
  });
}

export async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A confirmed coin of the test wallet key (P2WPKH), so a test can build any spend of it by hand. */
export async function fundedCoin(world: World, sat: number): Promise<FundingOutput> {
  const script = p2wpkhScript(walletKey.publicKey);
  const txid = await world.user.sendToAddress(addressOf(script), satToBtc(sat));
  await world.mine();
  const { vout, value } = findOutput(await world.node.getRawTransactionHex(txid), script);
  return { txid, vout, value, script };
}

/** Spends a coin of the test wallet key to several outputs (script, sat); the rest is the fee. */
export function spendToOutputs(coin: FundingOutput, outputs: { script: Uint8Array; amount: number }[]): { txid: string; hex: string } {
  // A one-output spend is built and signed by the shared helper; for more outputs the first one is the template.
  if (outputs.length === 1) {
    const spend = spendP2wpkh(coin, { destinationScript: outputs[0].script, outputAmount: BigInt(outputs[0].amount) });
    return { txid: spend.txid, hex: spend.hex };
  }
  const tx = new Transaction({ version: 2 });
  tx.addInput({ txid: coin.txid, index: coin.vout, witnessUtxo: { script: coin.script, amount: coin.value }, sequence: 0xfffffffd });
  for (const output of outputs) tx.addOutput({ script: output.script, amount: BigInt(output.amount) });
  tx.signIdx(walletKey.privateKey, 0);
  tx.finalizeIdx(0);
  return { txid: tx.id, hex: hex.encode(tx.extract()) };
}

/** Blocks that confirm nothing (generateblock, paying `to`), so a transaction stays in the mempool while the chain moves on. */
export async function mineEmpty(world: World, to: string, blocks: number): Promise<void> {
  for (let i = 0; i < blocks; i++) await world.node.call('generateblock', [to, []]);
  await world.watcher.sync();
}
