// `ferry swap chain` as child processes against a Ferry on ephemeral ports: a whole BTC → L-BTC swap funded with
// `ferry devnet send` and claimed into the Elements user wallet; an L-BTC → BTC swap nobody claims, where the service
// takes its lockup back at its timeout and `ferry swap refund` then gets the user's back with the service's signature
// (refused while the service's lockup could still be claimed); and usage mistakes told apart from failures.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { ferryCommand, jsonLines, runFerry } from '../helpers/ferry-process.ts';
import { startCliService, type Service } from '../client/support.ts';

let service: Service;
let env: Record<string, string | undefined>;

before(async () => {
  ({ service, env } = await startCliService('ferry-swap-chain-'));
});
after(async () => {
  await service?.close();
});

const ferry = (...args: string[]) => ferryCommand(env, ...args);

async function untilStatus(id: string, wanted: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { status } = (await (await fetch(`${service.apiUrl}/v2/swap/${id}`)).json()) as { status: string };
    if (status === wanted) return;
    if (Date.now() > deadline) throw new Error(`swap ${id} is ${status}, not ${wanted}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Until Ferry has seen its refund of its own lockup in a block (the swap's data says so). */
async function untilRefundConfirmed(id: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (((await service.ferry.storage.swaps.get(id))?.data as { refundConfirmed?: boolean }).refundConfirmed !== true) {
    if (Date.now() > deadline) throw new Error(`Ferry has not seen its refund of swap ${id} confirmed`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test('ferry swap chain --from BTC --to L-BTC: funded with ferry devnet send, the claim lands in the Elements user wallet', async () => {
  const swap = runFerry(['swap', 'chain', '--from', 'BTC', '--to', 'L-BTC', '--amount', '100000', '--json'], env);
  const created = await swap.waitFor((event) => event.event === 'created');
  assert.equal(created.userLockAmount, 100_000);
  assert.match(created.address as string, /^bcrt1p/, 'the lockup is a Taproot address on Bitcoin');
  assert.match(created.destination as string, /^el1/, 'the claim goes to a confidential address of the Elements user wallet');
  assert.equal((await ferry('devnet', 'send', created.address as string, satToBtc(100_000).toFixed(8))).code, 0);
  assert.equal((await ferry('devnet', 'mine')).code, 0);

  const claimed = await swap.waitFor((event) => event.event === 'claimed');
  assert.equal(await swap.exited, 0, swap.lines.join('\n'));
  assert.equal(claimed.path, 'key');
  assert.equal((claimed.amount as number) + (claimed.fee as number), created.serverLockAmount);
  await service.liquid.mine();
  const coin = (await service.liquid.user.listUnspent(1)).find((unspent) => unspent.txid === claimed.txid);
  assert.equal(Math.round((coin?.amount ?? 0) * 1e8), claimed.amount, 'a confirmed L-BTC coin of the user wallet');
  assert.match((await ferry('swap', 'list')).stdout, new RegExp(`${created.id}\\s+chain\\s+BTC→L-BTC\\s+100000 sat\\s+transaction\\.claimed`));
});

test('ferry swap chain --from L-BTC --to BTC left unclaimed: the service refunds at its timeout, then ferry swap refund gets ours back, signed with it', async () => {
  const [created] = jsonLines((await ferry('swap', 'chain', '--from', 'L-BTC', '--to', 'BTC', '--amount', '80000', '--no-wait', '--json')).stdout);
  const id = created.id as string;
  const { txid: lockupTxid } = JSON.parse((await ferry('devnet', 'send', created.address as string, '0.0008', '--chain', 'L-BTC')).stdout);
  await service.liquid.mine();
  await untilStatus(id, 'transaction.server.mempool');

  // While the service's lockup can still be claimed with the preimage, it signs no refund of ours.
  const early = await ferry('swap', 'refund', id);
  assert.equal(early.code, 1);
  assert.match(early.stderr, new RegExp(`times out at block ${created.timeoutBlockHeight}`));

  await service.mine((created.claimTimeoutBlockHeight as number) - (await service.node.getBlockCount()));
  await untilStatus(id, 'transaction.refunded');
  await service.mine();
  // Ferry signs ours only once it has seen its own refund in a block; its watcher may not have read that block yet.
  await untilRefundConfirmed(id);
  const before = await service.liquid.userBalance();
  const refunded = await ferry('swap', 'refund', id, '--json');
  assert.equal(refunded.code, 0, refunded.stderr);
  const [event] = jsonLines(refunded.stdout);
  assert.equal(event.path, 'key', 'cooperative, long before our own timeout');
  assert.equal((event.amount as number) + (event.fee as number), 80_000);
  const refund = await service.liquid.node.getRawTransaction(event.txid as string);
  assert.equal(refund.vin[0].txid, lockupTxid, 'the refund spends our lockup');
  await service.liquid.mine();
  assert.equal((await service.liquid.userBalance()) - before, BigInt(event.amount as number), 'the Elements user wallet has it back');
});

test('chain swap usage mistakes exit with 2, say what is wrong, and create nothing', async () => {
  const bitcoinAddress = await service.user.getNewAddress();
  const liquidAddress = await service.liquid.user.getNewAddress();
  for (const [args, message] of [
    [['swap', 'chain', '--from', 'BTC', '--to', 'BTC'], /two different chains/],
    [['swap', 'chain', '--from', 'BTC', '--to', 'DOGE'], /--to must be BTC or L-BTC, not DOGE/],
    [['swap', 'chain', '--to', 'L-BTC', '--amount', '1000', '--server-amount', '900'], /--amount .* or --server-amount .*, not both/],
    [['swap', 'chain', '--to', 'L-BTC', '--amount', '-5'], /--amount must be a positive integer/],
    [['swap', 'chain', '--to', 'L-BTC', '--address', bitcoinAddress], /--address: bcrt1\w+ is a Bitcoin address, but a swap on L-BTC pays to a confidential Liquid address/],
    [['swap', 'chain', '--to', 'L-BTC', '--refund-address', liquidAddress], /--refund-address: .* is a Liquid address, but a swap on BTC pays to a Bitcoin address/],
  ] as [string[], RegExp][]) {
    const result = await ferry(...args);
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, message);
  }
  assert.deepEqual(jsonLines((await ferry('swap', 'list', '--json')).stdout).filter((swap) => swap.type === 'chain').length, 2, 'only the two swaps above');
});
