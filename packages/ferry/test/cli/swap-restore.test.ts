// `ferry swap restore`: a wallet that lost its client store but kept its rescue key (the mnemonic of the store's
// rescue-key.json) gets everything back through the service's POST /v2/swap/restore — it refunds a failed submarine
// swap and claims a pending reverse swap, paid to its own addresses, and creates new swaps on unused keys.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { ferryCommand, jsonLines } from '../helpers/ferry-process.ts';
import { startCliService, temporaryDir, type Service } from '../client/support.ts';

let service: Service;
let env: Record<string, string | undefined>;

before(async () => {
  ({ service, env } = await startCliService('ferry-swap-restore-'));
});
after(async () => {
  await service?.close();
});

async function statusOf(id: string): Promise<string> {
  return ((await (await fetch(`${service.apiUrl}/v2/swap/${id}`)).json()) as { status: string }).status;
}

async function until(id: string, status: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while ((await statusOf(id)) !== status) {
    if (Date.now() > deadline) throw new Error(`swap ${id} is ${await statusOf(id)}, not ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('lost store, kept rescue key: restore refunds the failed submarine swap and claims the pending reverse swap', async () => {
  const ferry = (...args: string[]) => ferryCommand(env, ...args);
  // The wallet, before the loss: a submarine swap it underpays (it fails) and a reverse swap whose invoice is being paid.
  const { invoice } = await service.invoice('bob', 25_000);
  const submarine = jsonLines((await ferry('swap', 'submarine', '--invoice', invoice, '--no-wait', '--json')).stdout)[0];
  const lockupTxid = await service.user.sendToAddress(submarine.address as string, satToBtc(12_000));
  await service.mine();
  const reverse = jsonLines((await ferry('swap', 'reverse', '--amount', '40000', '--no-wait', '--json')).stdout)[0];
  const payment = ferry('devnet', 'pay', reverse.invoice as string, '--node', 'alice'); // held until the claim reveals the preimage
  await until(reverse.id as string, 'transaction.mempool');
  await until(submarine.id as string, 'transaction.lockupFailed');
  const { mnemonic } = JSON.parse(readFileSync(join(env.FERRY_CLIENT_DIR!, 'rescue-key.json'), 'utf8')) as { mnemonic: string };
  const shown = jsonLines((await ferry('swap', 'rescue-key', '--json')).stdout)[0];
  assert.equal(shown.mnemonic, mnemonic, 'ferry swap rescue-key shows what to write down');

  // The phone is lost: a new, empty client store; only the mnemonic is left.
  const fresh = { ...env, FERRY_CLIENT_DIR: temporaryDir('ferry-swap-restored-') };
  const again = (...args: string[]) => ferryCommand(fresh, ...args);
  assert.deepEqual(jsonLines((await again('swap', 'list', '--json')).stdout), []);
  const refundTo = await service.user.getNewAddress('', 'bech32');
  const restored = await again('swap', 'restore', '--mnemonic', mnemonic, '--address', refundTo, '--json');
  assert.equal(restored.code, 0, restored.stderr + restored.stdout);
  const events = jsonLines(restored.stdout);
  assert.deepEqual(
    events.filter((e) => e.event === 'restored').map((e) => [e.id, e.type, e.keyIndex]),
    [[submarine.id, 'submarine', 0], [reverse.id, 'reverse', 1]],
  );
  const refunded = events.find((e) => e.event === 'refunded');
  const claimed = events.find((e) => e.event === 'claimed');
  assert.equal(refunded?.id, submarine.id);
  assert.equal(refunded?.path, 'key');
  assert.equal(claimed?.id, reverse.id);

  // On chain: the refund spends the underpaid lockup to our address; the claim pays our address too.
  await service.mine();
  const coins = await service.user.listUnspent(1);
  const refundCoin = coins.find((c) => c.txid === refunded!.txid);
  assert.equal(refundCoin?.address, refundTo);
  assert.equal(Math.round(refundCoin!.amount * 1e8) + (refunded!.fee as number), 12_000);
  const refundTx = await service.node.getRawTransaction(refunded!.txid as string);
  assert.equal(refundTx.vin[0].txid, lockupTxid);
  assert.ok(coins.some((c) => c.txid === claimed!.txid && c.address === refundTo));
  assert.equal(JSON.parse((await payment).stdout).status, 'SUCCEEDED');
  await until(reverse.id as string, 'invoice.settled');

  // The rebuilt store knows both, and a new swap takes a key index the service has not seen.
  const listed = jsonLines((await again('swap', 'list', '--json')).stdout);
  assert.deepEqual(listed.map((s) => s.id).sort(), [submarine.id, reverse.id].sort());
  const next = jsonLines((await again('swap', 'reverse', '--amount', '30000', '--no-wait', '--json')).stdout)[0];
  const nextRecord = JSON.parse(readFileSync(join(fresh.FERRY_CLIENT_DIR!, 'swaps', `${next.id}.json`), 'utf8'));
  assert.equal(nextRecord.keyIndex, 2);
  // Restoring again changes nothing: every swap is known.
  const second = jsonLines((await again('swap', 'restore', '--json', '--no-wait')).stdout).find((e) => e.event === 'summary');
  assert.deepEqual(second, { event: 'summary', restored: 0, known: 3, skipped: 0, highestIndex: 2 });
});

test('restore usage: a bad mnemonic or both flags exit 2; --xpub of another key lists without spending', async () => {
  const bad = await ferryCommand(env, 'swap', 'restore', '--mnemonic', 'not a mnemonic at all');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--mnemonic: not a valid BIP39 mnemonic/);
  assert.doesNotMatch(bad.stderr, /not a mnemonic at all/);
  const both = await ferryCommand(env, 'swap', 'restore', '--mnemonic', 'x', '--xpub', 'y');
  assert.equal(both.code, 2);
  const stranger = 'xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8';
  const listed = await ferryCommand(env, 'swap', 'restore', '--xpub', stranger, '--json');
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual(jsonLines(listed.stdout).at(-1), { event: 'listed', count: 0 });
});
