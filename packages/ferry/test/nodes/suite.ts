// The swap scenarios of `npm run test:nodes`, registered as node:test tests against a Ferry started from a nodes
// file (world.ts): on every configured chain a submarine and a reverse swap, chain swaps BTC → L-BTC and L-BTC → BTC
// when both chains are there, and RBTC submarine and reverse swaps when an EVM node is. Each drives the user's side
// with the client SDK and asserts what happened, not only the statuses: the counterparty's invoice paid, Ferry's
// invoice paid with the preimage the user holds, the user's claim a coin of the user's wallet and confirmed, Ferry's
// claim of the user's lockup found on chain (the key path, co-signed) and confirmed. The scenarios are independent
// and run at once; a chain not configured skips its scenarios, saying so.
import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Contract } from 'ethers';
import { satToBtc, type CoreRpcClient, type DecodedTransaction } from '@ferry/sdk/chains/core-rpc.js';
import { interfaceOf } from '../../src/chains/evm/abi.ts';
import {
  followContractSwap,
  followSwap,
  ServiceError,
  swapChain,
  type ContractFollowEvent,
  type ContractRecord,
  type ContractSwaps,
  type FollowEvent,
  type SwapClient,
  type SwapRecord,
} from '@ferry/sdk/client/node.js';
import type { NodesConfig } from './nodes-file.ts';
import { startNodeWorld, type NodeWorld, type UserChainHandle, type UtxoCurrency } from './world.ts';

const SCENARIO_TIMEOUT_MS = 240_000;

const sha256Hex = (hex: string): string => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');

/** Polls until `check` answers something; the deadline is a failure, never a pass. */
async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

const orUndefined = <T>(promise: Promise<T>): Promise<T | undefined> => promise.catch(() => undefined);

/** The transaction that spends an output: in the mempool, or in a block from `sinceHeight` on. */
async function spenderOf(node: CoreRpcClient, outpoint: { txid: string; vout: number }, sinceHeight: number): Promise<DecodedTransaction | undefined> {
  const spends = (tx: DecodedTransaction) => tx.vin.some((input) => input.txid === outpoint.txid && input.vout === outpoint.vout);
  for (const txid of await node.getRawMempool()) {
    const tx = await orUndefined(node.getRawTransaction(txid));
    if (tx && spends(tx)) return tx;
  }
  const tip = await node.getBlockCount();
  for (let height = sinceHeight; height <= tip; height++) {
    const hash = await node.getBlockHash(height);
    for (const txid of (await node.getBlock(hash)).tx) {
      const tx = await node.getRawTransaction(txid, hash);
      if (spends(tx)) return tx;
    }
  }
  return undefined;
}

/** Mines until the transaction is in a block of the chain (once the node has it). */
async function confirm(chain: UserChainHandle, txid: string): Promise<DecodedTransaction> {
  await until(`${txid} in the ${chain.currency} node`, () => orUndefined(chain.node.getRawTransaction(txid)));
  return until(`${txid} confirmed on ${chain.currency}`, async () => {
    const tx = await chain.node.getRawTransaction(txid);
    if ((tx.confirmations ?? 0) >= 1) return tx;
    await chain.mine();
    return undefined;
  });
}

/** The output of a lockup transaction that pays the swap's address. */
async function lockupOutput(chain: UserChainHandle, txid: string, address: string): Promise<{ txid: string; vout: number }> {
  const script = Buffer.from(swapChain(chain.currency).decodeAddress(address, 'regtest').script).toString('hex');
  const tx = await chain.node.getRawTransaction(txid);
  const output = tx.vout.find((out) => out.scriptPubKey.hex === script);
  assert.ok(output, `lockup ${txid} pays ${address}`);
  return { txid, vout: output.n };
}

/** A coin of the user's wallet from this transaction, seen while still unconfirmed (no wallet spends that). */
async function walletCoin(chain: UserChainHandle, txid: string): Promise<{ sat: number }> {
  const coin = await until(`a coin of ${txid} in the user's ${chain.currency} wallet`, async () =>
    (await chain.wallet.listUnspent(0)).find((unspent) => unspent.txid === txid),
  );
  return { sat: Math.round(coin.amount * 1e8) };
}

async function followUtxo(client: SwapClient, record: SwapRecord, destination: (currency: string) => Promise<string>, onEvent?: (event: FollowEvent) => void) {
  const stream = client.statusStream({ pollIntervalMs: 250 });
  const events: FollowEvent[] = [];
  try {
    const result = await followSwap(client, record, {
      stream,
      destination,
      retryMs: 500,
      onEvent: (event) => {
        events.push(event);
        onEvent?.(event);
      },
    });
    return { result, events };
  } finally {
    stream.close();
  }
}

async function followContract(client: SwapClient, swaps: ContractSwaps, record: ContractRecord) {
  const stream = client.statusStream({ pollIntervalMs: 250 });
  const events: ContractFollowEvent[] = [];
  try {
    const result = await followContractSwap(swaps, record, { stream, retryMs: 500, onEvent: (event) => events.push(event) });
    return { result, events };
  } finally {
    stream.close();
  }
}

/** Registers the suite; `load` gives the nodes once the file's own set-up is done. */
/**
 * Creates a swap against the quote the SDK reads just before, as wallets do; when the quote moved in between (an
 * anvil block changed the gas price, and with it the pair's hash, while the UTXO scenarios' quotes kept the
 * service's one-second read of it: `invalid pair hash`), creates once more against a fresh read, as the reference's
 * web app does.
 */
async function withFreshQuote<T>(create: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await create();
    } catch (error) {
      const stale = error instanceof ServiceError && error.status === 400 && (error.body as { error?: unknown } | undefined)?.error === 'invalid pair hash';
      if (!stale || attempt >= 3) throw error;
    }
  }
}

export function registerNodeSuite(load: () => Promise<NodesConfig>): void {
  let world: NodeWorld;

  // Bounded, so nodes that never answer fail the run instead of holding it.
  before(async () => {
    world = await startNodeWorld(await load());
  }, { timeout: 300_000 });
  after(async () => {
    await world?.close();
  });

  const chainOf = (t: TestContext, currency: UtxoCurrency): UserChainHandle | undefined => {
    const chain = world.chains[currency];
    if (chain === undefined) t.skip(`no ${currency} node configured ([ferry.${currency === 'BTC' ? 'bitcoin' : 'liquid'}])`);
    return chain;
  };
  /** Ferry's last log lines, when an assertion fails. */
  const context = (message: string) => `${message}\n--- ferry's log ---\n${world.ferryLog()}`;

  describe('swaps against real nodes', { concurrency: true, timeout: SCENARIO_TIMEOUT_MS }, () => {
    for (const currency of ['BTC', 'L-BTC'] as const) {
      test(`${currency} submarine: the counterparty's invoice is paid, Ferry claims the user's lockup through the key path`, async (t) => {
        const chain = chainOf(t, currency);
        if (chain === undefined) return;
        const sat = currency === 'BTC' ? 30_000 : 31_000;
        const { invoice, paymentHash } = await world.counterparty.addInvoice(sat, `ferry node suite: ${currency} submarine`);
        const record = await world.client.createSubmarine({ invoice, currency });
        const sinceHeight = await chain.node.getBlockCount();
        const lockupTxid = await chain.wallet.sendToAddress(record.lockupAddress, satToBtc(record.expectedAmount));
        const following = followUtxo(world.client, record, () => chain.wallet.getNewAddress());
        await confirm(chain, lockupTxid); // the user's wallet signals RBF: Ferry waits for a block
        const { result, events } = await following;
        assert.equal(result.success, true, context(`${result.status}: ${result.message}`));
        assert.equal(result.status, 'transaction.claimed');

        const cosigned = events.find((event) => event.type === 'cosigned');
        assert.ok(cosigned?.type === 'cosigned', 'the user co-signed Ferry\'s claim');
        assert.equal(sha256Hex(cosigned.preimage), paymentHash, 'the preimage Ferry showed is the invoice\'s');
        assert.deepEqual(await world.counterparty.invoice(paymentHash), { settled: true, receivedSat: sat }, 'the counterparty was paid');

        const lockup = await lockupOutput(chain, lockupTxid, record.lockupAddress);
        const claim = await until("Ferry's claim of the lockup", () => spenderOf(chain.node, lockup, sinceHeight));
        assert.equal(claim.vin.length, 1);
        assert.equal(claim.vin[0].txinwitness?.length, 1, 'a key-path spend: one aggregated signature');
        assert.ok(((await confirm(chain, claim.txid)).confirmations ?? 0) >= 1, "Ferry's claim confirmed");
      });

      test(`${currency} reverse: the counterparty pays Ferry's invoice, the user's claim lands in the user's wallet`, async (t) => {
        const chain = chainOf(t, currency);
        if (chain === undefined) return;
        const record = await world.client.createReverse({ invoiceAmount: currency === 'BTC' ? 50_000 : 51_000, currency });
        const paying = world.counterparty.pay(record.invoice);
        paying.catch(() => undefined); // awaited below
        const { result, events } = await followUtxo(world.client, record, () => chain.wallet.getNewAddress());
        assert.equal(result.success, true, context(`${result.status}: ${result.message}`));
        const claimed = events.find((event) => event.type === 'claimed');
        assert.ok(claimed?.type === 'claimed', 'the user claimed Ferry\'s lockup');
        assert.equal(Number(claimed.claim.amount + claimed.claim.fee), record.onchainAmount, 'the claim spends what Ferry agreed to lock');
        assert.equal((await walletCoin(chain, claimed.claim.txid)).sat, Number(claimed.claim.amount), "the claim is a coin of the user's wallet");
        assert.equal((await paying).preimage, record.preimage, "the counterparty's payment settled with the user's preimage");
        assert.ok(((await confirm(chain, claimed.claim.txid)).confirmations ?? 0) >= 1, 'the claim confirmed');
      });
    }

    for (const [from, to] of [
      ['BTC', 'L-BTC'],
      ['L-BTC', 'BTC'],
    ] as const) {
      test(`chain ${from} → ${to}: the user claims Ferry's lockup into its ${to} wallet, Ferry claims the user's through the key path`, async (t) => {
        const fromChain = chainOf(t, from);
        const toChain = fromChain && chainOf(t, to);
        if (fromChain === undefined || toChain === undefined) return;
        const amount = from === 'BTC' ? 100_000 : 101_000;
        const record = await world.client.createChain({ from, to, userLockAmount: amount });
        const sinceHeight = await fromChain.node.getBlockCount();
        const lockupTxid = await fromChain.wallet.sendToAddress(record.lockupAddress, satToBtc(amount));
        let mined = false;
        const destinations: Record<string, () => Promise<string>> = { [from]: () => fromChain.wallet.getNewAddress(), [to]: () => toChain.wallet.getNewAddress() };
        const { result, events } = await followUtxo(
          world.client,
          record,
          (currency) => destinations[currency](),
          (event) => {
            // Ferry locks once the user's lockup is confirmed.
            if (event.type === 'status' && event.update.status === 'transaction.mempool' && !mined) {
              mined = true;
              void confirm(fromChain, lockupTxid).catch(() => undefined);
            }
          },
        );
        assert.equal(result.success, true, context(`${result.status}: ${result.message}`));
        assert.equal(result.status, 'transaction.claimed');
        const claimed = events.find((event) => event.type === 'claimed');
        assert.ok(claimed?.type === 'claimed', "the user claimed Ferry's lockup");
        assert.equal(Number(claimed.claim.amount + claimed.claim.fee), record.serverLockAmount, 'the claim spends what Ferry agreed to lock');
        assert.equal((await walletCoin(toChain, claimed.claim.txid)).sat, Number(claimed.claim.amount), `the claim is a coin of the user's ${to} wallet`);
        assert.ok(((await confirm(toChain, claimed.claim.txid)).confirmations ?? 0) >= 1, 'the claim confirmed');

        const lockup = await lockupOutput(fromChain, lockupTxid, record.lockupAddress);
        const ferryClaim = await until("Ferry's claim of the user's lockup", () => spenderOf(fromChain.node, lockup, sinceHeight));
        assert.equal(ferryClaim.vin[0].txinwitness?.length, 1, 'a key-path spend, co-signed by the user');
        assert.ok(((await confirm(fromChain, ferryClaim.txid)).confirmations ?? 0) >= 1, "Ferry's claim confirmed");
      });
    }

    // One after the other: each EVM transaction mines a block on anvil, which moves eth_gasPrice and with it the
    // pair's hash, so a block of the other RBTC swap between reading the pair and creating a swap refuses the creation.
    describe('RBTC', { concurrency: false }, () => {
      test('RBTC submarine: the counterparty\'s invoice is paid, Ferry claims the lock out of the contract', async (t) => {
        if (world.evm === undefined) return t.skip('no EVM node configured ([ferry.evm])');
        const { provider, operator } = world.evm;
        const { client } = await world.evm.newClient();
        const swaps = await client.contracts('RBTC');
        const sat = 40_000;
        const { invoice, paymentHash } = await world.counterparty.addInvoice(sat, 'ferry node suite: RBTC submarine');
        const record = await withFreshQuote(() => swaps.createSubmarine({ invoice }));
        const fromBlock = await provider.getBlockNumber();
        await swaps.lock(record);
        const { result } = await followContract(client, swaps, record);
        assert.equal(result.success, true, context(`${result.status}: ${result.message}`));
        assert.deepEqual(await world.counterparty.invoice(paymentHash), { settled: true, receivedSat: sat }, 'the counterparty was paid');

        const values = swaps.submarineValues(record);
        await until("Ferry's claim out of the contract", async () => ((await swaps.chain.isLocked(values)) ? undefined : true), 30_000);
        const etherSwap = new Contract(record.contract.address, interfaceOf('EtherSwap'), provider);
        const claims = await etherSwap.queryFilter(etherSwap.filters.Claim(`0x${paymentHash}`), fromBlock);
        assert.equal(claims.length, 1, 'claimed once');
        const receipt = (await provider.getTransactionReceipt(claims[0].transactionHash))!;
        assert.equal(receipt.status, 1);
        assert.equal(receipt.from, operator, "by Ferry's operator account");
      });

      test("RBTC reverse: the counterparty pays Ferry's invoice, the user's account gets the locked amount less its claim's gas", async (t) => {
        if (world.evm === undefined) return t.skip('no EVM node configured ([ferry.evm])');
        const { client, address } = await world.evm.newClient();
        const swaps = await client.contracts('RBTC');
        const record = await withFreshQuote(() => swaps.createReverse({ invoiceAmount: 50_000 }));
        const before = await world.evm.provider.getBalance(address);
        const paying = world.counterparty.pay(record.invoice);
        paying.catch(() => undefined); // awaited below
        const { result, events } = await followContract(client, swaps, record);
        assert.equal(result.success, true, context(`${result.status}: ${result.message}`));
        const claimed = events.find((event) => event.type === 'claimed');
        assert.ok(claimed?.type === 'claimed', "the user claimed Ferry's lock");
        assert.equal(await world.evm.provider.getBalance(address), before + BigInt(record.onchainAmount) * 10n ** 10n - claimed.tx.fee, 'the locked amount, less the claim gas');
        assert.equal((await paying).preimage, record.preimage, "the counterparty's payment settled with the user's preimage");
      });
    });
  });
}
