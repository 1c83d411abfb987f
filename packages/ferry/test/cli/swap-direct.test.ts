// `ferry swap submarine` as the payer of a magic routing hint, as a child process against a Ferry on ephemeral
// ports: the invoice of an L-BTC reverse swap whose receiver signed its address is not swapped — the CLI checks the
// signed BIP21 and says to pay the receiver on Liquid; paid so, the receiver's address holds the coins and Ferry has
// no submarine swap. A service that lies about the BIP21 (a signature by another key, more than the invoice asks)
// is refused with nothing created; --no-direct asks for a swap as usual, and a plain invoice is swapped.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { policyAsset } from '@ferry/sdk/chains/liquid/network.js';
import { SwapClient } from '@ferry/sdk/client/index.js';
import { signAddress } from '@ferry/sdk/lightning/magic-routing-hint.js';
import { newKeyPair } from '@ferry/sdk/client/keys.js';
import { hex } from '@scure/base';
import { ferryCommand, jsonLines } from '../helpers/ferry-process.ts';
import { startCliService, TamperingProxy, type Service } from '../client/support.ts';

let service: Service;
let env: Record<string, string | undefined>;
let proxy: TamperingProxy;

before(async () => {
  ({ service, env } = await startCliService('ferry-swap-direct-'));
  env = { ...env, FERRY_ADMIN_SOCKET: service.ferry.adminSocket };
  proxy = await TamperingProxy.start(service.apiUrl);
});
after(async () => {
  await proxy?.close();
  await service?.close();
});

const ferry = (...args: string[]) => ferryCommand(env, ...args);

/** Ferry's submarine swaps, as its operator sees them. */
async function submarineSwaps(): Promise<string[]> {
  const listed = await ferry('admin', 'swaps', '--limit', '1000');
  assert.equal(listed.code, 0, listed.stderr);
  return (JSON.parse(listed.stdout) as { id: string; type: string }[]).filter((swap) => swap.type === 'submarine').map((swap) => swap.id);
}

/** A reverse swap to L-BTC whose receiver (another wallet: its own store) asks for the hint on a fresh address. */
async function hintedInvoice(invoiceAmount: number) {
  const receiver = new SwapClient({ serviceUrl: service.apiUrl, network: 'regtest', currency: 'L-BTC' });
  const address = await service.liquid.user.getNewAddress();
  const record = await receiver.createReverse({ invoiceAmount, currency: 'L-BTC', directAddress: address });
  return { record, address, receiver };
}

/** The confirmed coins at `address` in the devnet's Elements user wallet: txid, sat and asset. */
const coinsAt = async (address: string) =>
  (await service.liquid.user.call<Array<{ txid: string; amount: number; asset: string }>>('listunspent', [1, 9_999_999, [address]])).map((coin) => ({
    txid: coin.txid,
    amount: Math.round(coin.amount * 1e8),
    asset: coin.asset,
  }));

test('ferry swap submarine --from L-BTC on a hinted invoice: no swap, the receiver is paid on Liquid directly', async () => {
  const { record, address, receiver } = await hintedInvoice(40_000);
  const before = await submarineSwaps();
  const run = await ferry('swap', 'submarine', '--invoice', record.invoice, '--from', 'L-BTC', '--json');
  assert.equal(run.code, 0, run.stderr);
  const [direct] = jsonLines(run.stdout);
  assert.equal(direct.event, 'direct');
  assert.equal(direct.address, address, "the CLI pays the receiver's own signed address");
  assert.equal(direct.assetId, policyAsset('regtest'));
  assert.equal(direct.invoiceAmount, 40_000);
  const amount = direct.amount as number;
  assert.ok(amount > 0 && amount <= record.onchainAmount, `${amount} sat, at most the ${record.onchainAmount} sat the receiver would have been locked`);

  assert.deepEqual(await coinsAt(address), []);
  const sent = await ferry('devnet', 'send', address, direct.amountBtc as string, '--chain', 'L-BTC');
  assert.equal(sent.code, 0, sent.stderr);
  const { txid } = JSON.parse(sent.stdout);
  await service.liquid.mine();
  assert.deepEqual(await coinsAt(address), [{ txid, amount, asset: policyAsset('regtest') }], 'the receiver got the BIP21 amount in L-BTC');

  assert.deepEqual(await submarineSwaps(), before, 'Ferry has no new submarine swap');
  assert.deepEqual(jsonLines((await ferry('swap', 'list', '--json')).stdout), [], "nothing in the payer's client store");
  assert.equal((await receiver.status(record.id)).status, 'swap.created', 'the invoice was never paid and Ferry locked nothing');

  const text = await ferry('swap', 'submarine', '--invoice', record.invoice, '--from', 'L-BTC');
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, new RegExp(`send ${amount} sat \\(${(direct.amountBtc as string).replace('.', '\\.')} L-BTC\\) to ${address}`));
});

test('a BIP21 signed by another key or asking more than the invoice is refused, nothing created; --no-direct asks for a swap', async () => {
  const { record, address } = await hintedInvoice(30_000);
  const before = await submarineSwaps();
  const bip21Path = `/v2/swap/reverse/${record.invoice.toLowerCase()}/bip21`;
  const lie = (change: (answer: { bip21: string; signature: string }) => { bip21: string; signature: string }) => {
    proxy.rewrite = (method, path, body) => (method === 'GET' && path === bip21Path ? change(body as { bip21: string; signature: string }) : body);
  };
  const viaProxy = (...args: string[]) => ferry('swap', 'submarine', '--invoice', record.invoice, '--from', 'L-BTC', '--service', proxy.url, '--no-wait', ...args);

  lie((answer) => ({ ...answer, signature: hex.encode(signAddress(address, newKeyPair().privateKey)) }));
  const forged = await viaProxy();
  assert.equal(forged.code, 1, forged.stdout);
  assert.match(forged.stderr, /refused the service answer: .*address signature does not match the key in the invoice; nothing was created/);

  lie((answer) => ({ ...answer, bip21: answer.bip21.replace(/amount=[0-9.]+/, 'amount=0.00030001') }));
  const tooMuch = await viaProxy();
  assert.equal(tooMuch.code, 1, tooMuch.stdout);
  assert.match(tooMuch.stderr, /asks for 30001 sat, more than the invoice's 30000/);

  lie((answer) => answer);
  const bitcoin = await viaProxy('--from', 'BTC');
  assert.equal(bitcoin.code, 1, bitcoin.stdout);
  assert.match(bitcoin.stderr, /the BIP21 is for \w+, not bitcoin/, 'an L-BTC hint is no direct payment on Bitcoin');

  assert.deepEqual(await submarineSwaps(), before, 'no refused run created a swap');
  assert.deepEqual(jsonLines((await ferry('swap', 'list', '--json')).stdout).filter((swap) => swap.invoiceAmount === 30_000), []);

  // --no-direct skips the hint and asks this service for a swap, which it refuses: the invoice is its own reverse swap's.
  const swapped = await ferry('swap', 'submarine', '--invoice', record.invoice, '--from', 'L-BTC', '--no-direct', '--no-wait');
  assert.equal(swapped.code, 1, swapped.stdout);
  assert.match(swapped.stderr, /POST \/v2\/swap\/submarine answered 409: a swap with this invoice exists already/);
  assert.doesNotMatch(swapped.stdout, /no swap needed/);
});

test('an invoice without a hint is swapped as before', async () => {
  const { invoice } = await service.invoice('alice', 20_000);
  const run = await ferry('swap', 'submarine', '--invoice', invoice, '--from', 'L-BTC', '--no-wait', '--json');
  assert.equal(run.code, 0, run.stderr);
  const [created] = jsonLines(run.stdout);
  assert.equal(created.event, 'created');
  assert.ok((await submarineSwaps()).includes(created.id as string));
});
