// `ferry swap` beyond the walkthrough, as child processes: a swap survives its command being killed, a lying
// service is refused before an address is even shown, a refund file's PNG refunds without the service after
// the timeout, and usage mistakes are told apart from failures.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { ferryBin, ferryCommand, jsonLines } from '../helpers/ferry-process.ts';
import { TamperingProxy, startCliService, type Service } from '../client/support.ts';

let service: Service;
let env: Record<string, string | undefined>;

before(async () => {
  ({ service, env } = await startCliService('ferry-swap-cli-'));
});
after(async () => {
  await service?.close();
});

const ferry = (...args: string[]) => ferryCommand(env, ...args);

test('a submarine swap survives its command being killed: `ferry swap claim ID` picks it up and co-signs', async () => {
  const { invoice } = await service.invoice('bob', 21_000);
  const child = spawn(process.execPath, [ferryBin, 'swap', 'submarine', '--invoice', invoice, '--json'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const created = await new Promise<Record<string, unknown>>((resolve) => {
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const line = buffer.split('\n').find((l) => l.includes('"event":"created"'));
      if (line) resolve(JSON.parse(line));
    });
  });
  child.kill('SIGKILL');
  await new Promise((resolve) => child.on('exit', resolve));

  await service.user.sendToAddress(created.address as string, satToBtc(created.expectedAmount as number));
  await service.mine();
  const resumed = await ferry('swap', 'claim', created.id as string, '--json');
  assert.equal(resumed.code, 0, resumed.stderr);
  const events = jsonLines(resumed.stdout);
  assert.ok(events.some((e) => e.event === 'cosigned'));
  assert.deepEqual(events.at(-1), { event: 'done', id: created.id, status: 'transaction.claimed', success: true });
  const status = jsonLines((await ferry('swap', 'status', created.id as string, '--json')).stdout)[0];
  assert.equal(status.status, 'transaction.claimed');
  assert.equal(status.live, true);
});

test('a lying service: the command refuses its answer and never shows an address to fund', async () => {
  const proxy = await TamperingProxy.start(service.apiUrl);
  try {
    const stranger = await service.user.getNewAddress('', 'bech32m');
    proxy.rewrite = (method, path, body) => (method === 'POST' && path === '/v2/swap/submarine' ? { ...(body as object), address: stranger } : body);
    const { invoice } = await service.invoice('alice', 15_000);
    const before = readdirSync(join(env.FERRY_CLIENT_DIR!, 'swaps')).length;
    const result = await ferry('swap', 'submarine', '--invoice', invoice, '--service', proxy.url);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /refused the service answer: the lockup address .* does not commit to the swap tree and both keys/);
    assert.doesNotMatch(result.stdout, /bcrt1/);
    assert.equal(readdirSync(join(env.FERRY_CLIENT_DIR!, 'swaps')).length, before);
  } finally {
    await proxy.close();
  }
});

test('`ferry swap refund --file X.png` without the service: refused before the timeout, accepted after it', async () => {
  const { invoice } = await service.invoice('bob', 18_000);
  const created = jsonLines((await ferry('swap', 'submarine', '--invoice', invoice, '--no-wait', '--json')).stdout)[0];
  const lockupTxid = await service.user.sendToAddress(created.address as string, satToBtc(9_000)); // underpaid: the swap fails
  await service.mine();
  const png = (created.refundFiles as { png: string }).png;
  const gone = ['--service', 'http://127.0.0.1:1', '--bitcoin-rpc', service.rpcUrlWithCredentials, '--lockup', lockupTxid];

  const early = await ferry('swap', 'refund', '--file', png, ...gone);
  assert.equal(early.code, 1);
  assert.match(early.stderr, new RegExp(`times out at block ${created.timeoutBlockHeight}`));

  await service.mine((created.timeoutBlockHeight as number) - (await service.node.getBlockCount()));
  const refunded = await ferry('swap', 'refund', '--file', png, ...gone, '--json');
  assert.equal(refunded.code, 0, refunded.stderr);
  const [event] = jsonLines(refunded.stdout);
  assert.equal(event.path, 'script');
  await service.mine();
  const coin = (await service.user.listUnspent(1)).find((u) => u.txid === event.txid);
  assert.equal(coin?.address, event.address);
  assert.equal(Math.round(coin!.amount * 1e8) + (event.fee as number), 9_000);
  // The store learns of the refund too.
  const listed = jsonLines((await ferry('swap', 'list', '--json')).stdout).find((s) => s.id === created.id);
  assert.equal(listed?.refund, event.txid);
});

test('`ferry swap submarine --legacy`: a v1 swap with a refund file in the spec\'s format; funded, the service pays and claims', async () => {
  const { invoice } = await service.invoice('bob', 19_000);
  const bobBefore = await service.channelBalance('bob');
  const result = await ferry('swap', 'submarine', '--legacy', '--invoice', invoice, '--json');
  assert.equal(result.code, 0, result.stderr);
  const [created] = jsonLines(result.stdout);
  assert.equal(created.legacy, true);
  assert.match(created.address as string, /^2/, 'P2SH-nested P2WSH on regtest');
  const file = JSON.parse(readFileSync((created.refundFiles as { json: string }).json, 'utf8'));
  assert.deepEqual(Object.keys(file), ['id', 'currency', 'redeemScript', 'privateKey', 'timeoutBlockHeight']);
  assert.equal(file.redeemScript, created.redeemScript);
  await service.user.sendToAddress(created.address as string, satToBtc(created.expectedAmount as number));
  await service.mine();
  for (let round = 1; ; round++) {
    const status = (await (await fetch(`${service.apiUrl}/v2/swap/${created.id}`)).json()) as { status: string };
    if (status.status === 'transaction.claimed') break;
    assert.ok(round < 200, `stuck in ${status.status}`);
    if (round % 10 === 0) await service.mine();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal((await service.channelBalance('bob')) - bobBefore, 19_000);
});

test('usage mistakes exit with 2 and say what is wrong', async () => {
  for (const [args, message] of [
    [['swap'], /missing swap command/],
    [['swap', 'teleport'], /unknown swap command: teleport/],
    [['swap', 'reverse'], /usage: ferry swap reverse --amount SATS/],
    [['swap', 'reverse', '--amount', '-5'], /--amount must be a positive integer|usage/],
    [['swap', 'submarine'], /usage: ferry swap submarine --invoice INVOICE/],
    [['swap', 'refund'], /usage: ferry swap refund ID/],
    [['swap', 'reverse', '--amount', '1000', '--address', 'bc1qnotregtest'], /--address: not a regtest address/],
  ] as [string[], RegExp][]) {
    const result = await ferry(...args);
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, message);
  }
  const unknown = await ferry('swap', 'status', 'NoSuchSwap12');
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /no swap NoSuchSwap12 in the client store/);
});
