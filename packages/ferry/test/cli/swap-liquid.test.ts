// `ferry swap` on Liquid, as child processes against a Ferry on ephemeral ports: a whole reverse swap to L-BTC
// (--to L-BTC) claimed into the devnet's Elements user wallet, a submarine swap from L-BTC (--from L-BTC) funded with
// `ferry devnet send --chain L-BTC` and resumed with `ferry swap claim`, a refund from the refund file through an
// Elements node (--elements-rpc) after the timeout, and L-BTC usage mistakes told apart from failures.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ferryCommand, jsonLines, runFerry } from '../helpers/ferry-process.ts';
import { startCliService, type Service } from '../client/support.ts';

let service: Service;
let env: Record<string, string | undefined>;

before(async () => {
  ({ service, env } = await startCliService('ferry-swap-liquid-'));
});
after(async () => {
  await service?.close();
});

const ferry = (...args: string[]) => ferryCommand(env, ...args);

/** The user wallet's confirmed L-BTC coin created by a transaction, in sat. */
async function coinOf(txid: string): Promise<number | undefined> {
  const coin = (await service.liquid.user.listUnspent(1)).find((u) => u.txid === txid);
  return coin && Math.round(coin.amount * 1e8);
}

test('ferry swap reverse --to L-BTC: alice pays the invoice, the claim lands in the Elements user wallet', async () => {
  const aliceStart = await service.channelBalance('alice');
  const swap = runFerry(['swap', 'reverse', '--amount', '50000', '--to', 'L-BTC', '--json'], env);
  const created = await swap.waitFor((e) => e.event === 'created');
  assert.equal(created.currency, 'L-BTC');
  assert.match(created.destination as string, /^el1/, 'the devnet destination is a confidential address of the Elements user wallet');
  const paid = await ferry('devnet', 'pay', created.invoice as string, '--node', 'alice');
  assert.equal(JSON.parse(paid.stdout).status, 'SUCCEEDED', paid.stderr);
  const claimed = await swap.waitFor((e) => e.event === 'claimed');
  assert.equal(await swap.exited, 0, swap.lines.join('\n'));
  assert.equal(claimed.path, 'key');
  assert.equal(claimed.address, created.destination);
  assert.equal((claimed.amount as number) + (claimed.fee as number), created.onchainAmount);

  assert.equal((await ferry('devnet', 'mine', '--chain', 'L-BTC')).code, 0);
  assert.equal(await coinOf(claimed.txid as string), claimed.amount, 'the claim is a confirmed L-BTC coin of the user wallet');
  assert.equal(aliceStart - (await service.channelBalance('alice')), 50_000);
});

test('ferry swap submarine --from L-BTC: funded with ferry devnet send --chain L-BTC, resumed with ferry swap claim', async () => {
  const aliceStart = await service.channelBalance('alice');
  const { invoice } = JSON.parse((await ferry('devnet', 'invoice', '30000', '--node', 'alice')).stdout);
  const created = await ferry('swap', 'submarine', '--invoice', invoice, '--from', 'L-BTC', '--no-wait');
  assert.equal(created.code, 0, created.stderr);
  const [, id] = created.stdout.match(/swap (\w+) created \(submarine\)/)!;
  const [, amount, address] = created.stdout.match(/30049 sat \((\d+\.\d{8}) L-BTC\) to (el1\w+)/)!;
  assert.equal((await ferry('devnet', 'send', address, amount, '--chain', 'L-BTC')).code, 0);
  assert.equal((await ferry('devnet', 'mine', '--chain', 'L-BTC')).code, 0);

  const resumed = await ferry('swap', 'claim', id);
  assert.equal(resumed.code, 0, resumed.stderr + resumed.stdout);
  assert.match(resumed.stdout, /co-signed the service's claim \(preimage [0-9a-f]{64} proves the invoice was paid\)/);
  assert.match(resumed.stdout, new RegExp(`swap ${id}: done \\(transaction.claimed\\)`));
  assert.equal((await service.channelBalance('alice')) - aliceStart, 30_000);
  assert.match((await ferry('swap', 'list')).stdout, new RegExp(`${id}\\s+submarine\\s+L-BTC\\s+30000 sat\\s+transaction\\.claimed`));
});

test('ferry swap refund --file of an L-BTC swap through --elements-rpc, without the service: refused before the timeout, done after', async () => {
  const { invoice } = JSON.parse((await ferry('devnet', 'invoice', '18000', '--node', 'bob')).stdout);
  const [created] = jsonLines((await ferry('swap', 'submarine', '--invoice', invoice, '--from', 'L-BTC', '--no-wait', '--json')).stdout);
  const { txid: lockupTxid } = JSON.parse((await ferry('devnet', 'send', created.address as string, '0.00009', '--chain', 'L-BTC')).stdout);
  await service.liquid.mine();
  const file = (created.refundFiles as { json: string }).json;
  const gone = ['--service', 'http://127.0.0.1:1', '--elements-rpc', service.liquid.rpcUrlWithCredentials, '--lockup', lockupTxid];

  const early = await ferry('swap', 'refund', '--file', file, ...gone);
  assert.equal(early.code, 1);
  assert.match(early.stderr, new RegExp(`times out at block ${created.timeoutBlockHeight}`));

  await service.liquid.mine((created.timeoutBlockHeight as number) - (await service.liquid.node.getBlockCount()));
  const refunded = await ferry('swap', 'refund', '--file', file, ...gone, '--json');
  assert.equal(refunded.code, 0, refunded.stderr);
  const [event] = jsonLines(refunded.stdout);
  assert.equal(event.path, 'script');
  assert.match(event.address as string, /^el1/);
  await service.liquid.mine();
  assert.equal(((await coinOf(event.txid as string)) ?? 0) + (event.fee as number), 9_000);
});

test('L-BTC usage mistakes exit with 2 and say what is wrong', async () => {
  const bitcoinAddress = await service.user.getNewAddress();
  const { invoice } = JSON.parse((await ferry('devnet', 'invoice', '10000', '--node', 'alice')).stdout);
  for (const [args, message] of [
    [['swap', 'reverse', '--amount', '1000', '--to', 'L-BTC', '--address', bitcoinAddress], /--address: bcrt1\w+ is a Bitcoin address, but a swap on L-BTC pays to a confidential Liquid address/],
    [['swap', 'submarine', '--invoice', invoice, '--from', 'L-BTC', '--address', bitcoinAddress], /is a Bitcoin address, but a swap on L-BTC/],
    [['swap', 'reverse', '--amount', '1000', '--to', 'DOGE'], /--to must be BTC, L-BTC or RBTC, not DOGE/],
    [['swap', 'reverse', '--amount', '1000', '--from', 'L-BTC'], /--from: a reverse swap is paid from Lightning/],
    [['swap', 'submarine', '--invoice', invoice, '--to', 'L-BTC'], /--to: a submarine swap pays Lightning/],
    [['swap', 'reverse', '--amount', '1000', '--to', 'L-BTC', '--fee-rate', '0.05'], /--fee-rate must be a number of sat\/vbyte, at least 0.1 on L-BTC/],
  ] as [string[], RegExp][]) {
    const result = await ferry(...args);
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, message);
  }
  assert.deepEqual(jsonLines((await ferry('swap', 'list', '--json')).stdout).filter((s) => s.invoiceAmount === 1000 || s.invoiceAmount === 10_000), [], 'nothing was created');
});
