// The client SDK's RBTC swaps against Ferry on the devnet's anvil: a submarine swap locked from a private key and a
// reverse swap claimed into a mnemonic's account, followed to their end; a failed submarine swap refunded with the
// service's EIP-712 signature; a store lost, the lockup found again from the Lockup logs by refund address and
// refunded after the timelock; a lying service (contracts, addresses, timelock, amounts, its lockup, a forged EIP-712
// signature) refused before a wei moves. Asserted on the account balances, the contract's swaps() and the Lightning nodes.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HDNodeWallet, JsonRpcProvider, Mnemonic, Wallet, parseEther, randomBytes, toQuantity } from 'ethers';
import { FileClientStore, RefundTooEarlyError, SwapClient, VerificationError, followContractSwap, type ContractFollowEvent, type ContractRecord, type ContractSwaps, type EvmAccount } from '@ferry/sdk/client/node.js';
import { TamperingProxy, startService, temporaryDir, type Service } from './support.ts';

let service: Service;
let provider: JsonRpcProvider;

before(async () => {
  service = await startService();
  provider = new JsonRpcProvider(service.info.evm.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
});

after(async () => {
  provider?.destroy();
  await service?.close();
});

/** A new account with 10 RBTC from the devnet's user account: balances then move only by what the test does. */
async function fundedAccount(kind: 'key' | 'mnemonic' = 'key'): Promise<{ account: EvmAccount; address: string }> {
  const funder = new Wallet(service.info.evm.accounts.user.privateKey, provider);
  if (kind === 'key') {
    const wallet = Wallet.createRandom();
    await (await funder.sendTransaction({ to: wallet.address, value: parseEther('10') })).wait();
    return { account: { privateKey: wallet.privateKey }, address: wallet.address };
  }
  const mnemonic = Mnemonic.fromEntropy(randomBytes(16)).phrase;
  const address = HDNodeWallet.fromPhrase(mnemonic, undefined, "m/44'/60'/0'/0/2").address;
  await (await funder.sendTransaction({ to: address, value: parseEther('10') })).wait();
  return { account: { mnemonic, index: 2 }, address };
}

function clientFor(account: EvmAccount, store = new FileClientStore(temporaryDir('ferry-rbtc-client-')), serviceUrl = service.apiUrl): SwapClient {
  return new SwapClient({ serviceUrl, network: 'regtest', store, evm: { rpcUrl: service.info.evm.rpcUrl, account } });
}

/** Rewrites the JSON answer of one method and path (query aside) of the proxied service. */
function lieAbout(proxy: TamperingProxy, method: string, path: string | RegExp, change: (body: Record<string, unknown>) => Record<string, unknown>): void {
  proxy.rewrite = (m, p, body) => (m === method && (typeof path === 'string' ? p === path : path.test(p)) ? change(body as Record<string, unknown>) : body);
}

const refused = (pattern: RegExp) => (error: unknown) => {
  assert.ok(error instanceof VerificationError, String(error));
  assert.match(error.message, pattern);
  return true;
};

async function follow(swaps: ContractSwaps, client: SwapClient, record: ContractRecord, options: { refund?: boolean } = {}) {
  const stream = client.statusStream({ pollIntervalMs: 200 });
  const events: ContractFollowEvent[] = [];
  try {
    const result = await followContractSwap(swaps, record, { stream, retryMs: 500, onEvent: (event) => events.push(event), ...options });
    return { result, events };
  } finally {
    stream.close();
  }
}

async function aliceInvoiceState(paymentHash: string): Promise<string> {
  return (await service.lightning('alice').lookupInvoice(paymentHash))?.state ?? 'unknown';
}

/** An invoice of alice's for more than Ferry's channel to her holds: its payment fails after the lockup. */
async function unpayableInvoice() {
  // Read from alice's side, so it holds whichever kind of node Ferry runs on: Ferry's balance is her channel's remote one.
  const { alice } = service.info.lightning;
  const ferryPubkey = (await service.ferryNode.getInfo()).publicKey;
  const response = await fetch(`${alice.restUrl}/v1/channels`, { headers: { 'Grpc-Metadata-macaroon': alice.macaroon } });
  const { channels } = (await response.json()) as { channels: { remote_pubkey: string; remote_balance: string }[] };
  const toFerry = channels.find((channel) => channel.remote_pubkey === ferryPubkey)!;
  return service.invoice('alice', Number(toFerry.remote_balance) + 100_000);
}

describe('client SDK: RBTC swaps on the EVM chain', { timeout: 600_000 }, () => {
  test('submarine from a private key: checked, locked, paid by Ferry, claimed out of the contract', async () => {
    const { account, address } = await fundedAccount();
    const client = clientFor(account);
    try {
      const swaps = await client.contracts('RBTC');
      const { invoice, paymentHash } = await service.invoice('alice', 40_000);
      const record = await swaps.createSubmarine({ invoice });
      assert.equal(record.account, address);
      assert.deepEqual(client.store!.loadContract(record.id), record, 'stored before the lock');
      const before = await provider.getBalance(address);
      const lock = await swaps.lock(record);
      const values = swaps.submarineValues(record);
      assert.equal(values.amount, BigInt(record.expectedAmount) * 10n ** 10n);
      assert.equal(await provider.getBalance(address), before - values.amount - lock.fee);
      await assert.rejects(swaps.lock(record), /locked already/, 'never twice');

      const { result } = await follow(swaps, client, record);
      assert.equal(result.success, true, result.message);
      assert.equal(await aliceInvoiceState(paymentHash), 'SETTLED');
      assert.ok((client.store!.loadContract(record.id) as typeof record).preimage, 'the proof of payment is kept');
      // The claim may still be pending in a batch: it leaves the contract within moments.
      const deadline = Date.now() + 10_000;
      while ((await swaps.chain.isLocked(values)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(await swaps.chain.isLocked(values), false, 'claimed by Ferry');
    } finally {
      await client.close();
    }
  });

  test('reverse into a mnemonic account: alice pays, the client claims exactly what was agreed, Ferry settles', async () => {
    const { account, address } = await fundedAccount('mnemonic');
    const client = clientFor(account);
    try {
      const swaps = await client.contracts();
      const record = await swaps.createReverse({ invoiceAmount: 50_000 });
      assert.equal(record.account, address);
      const payment = service.lightning('alice').payInvoice({ paymentRequest: record.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 60 });
      const before = await provider.getBalance(address);
      const { result, events } = await follow(swaps, client, record);
      assert.equal(result.success, true, result.message);
      assert.equal(result.status, 'invoice.settled');
      const claimed = events.find((event) => event.type === 'claimed');
      assert.ok(claimed?.type === 'claimed');
      assert.equal(await provider.getBalance(address), before + BigInt(record.onchainAmount) * 10n ** 10n - claimed.tx.fee, 'the onchain amount, less the claim gas');
      assert.equal((await payment).status, 'SUCCEEDED');
      assert.equal((client.store!.loadContract(record.id) as typeof record).claim?.txHash, claimed.tx.txHash);
    } finally {
      await client.close();
    }
  });

  test('failed submarine: followed, refunded at once with the EIP-712 signature', async () => {
    const { account, address } = await fundedAccount();
    const client = clientFor(account);
    try {
      const swaps = await client.contracts();
      const { invoice, paymentHash } = await unpayableInvoice();
      const record = await swaps.createSubmarine({ invoice });
      const before = await provider.getBalance(address);
      const lock = await swaps.lock(record);
      const { result, events } = await follow(swaps, client, record);
      assert.equal(result.success, false);
      assert.equal(result.status, 'invoice.failedToPay');
      const refunded = events.find((event) => event.type === 'refunded');
      assert.ok(refunded?.type === 'refunded', JSON.stringify(events.filter((e) => e.type === 'warning')));
      assert.equal(refunded.refund.path, 'cooperative');
      assert.equal(await provider.getBalance(address), before - lock.fee - refunded.refund.fee, 'all back but the gas');
      assert.equal(await swaps.chain.isLocked(swaps.submarineValues(record)), false);
      assert.equal(await aliceInvoiceState(paymentHash), 'OPEN');
      assert.equal((client.store!.loadContract(record.id) as { refund?: { path: string } }).refund?.path, 'cooperative');
    } finally {
      await client.close();
    }
  });

  test('a lying service is refused before a wei moves: contract, claim and refund address, timelock, amounts, lockup, signature', async () => {
    const proxy = await TamperingProxy.start(service.apiUrl);
    const { account, address } = await fundedAccount();
    const client = clientFor(account, undefined, proxy.url);
    try {
      // A contracts endpoint naming another contract, or another chain: nothing connects.
      const { erc20Swap } = service.info.evm.contracts;
      lieAbout(proxy, 'GET', '/v2/chain/RBTC/contracts', (body) => ({ ...body, swapContracts: { ...(body.swapContracts as object), EtherSwap: erc20Swap } }));
      await assert.rejects(client.contracts(), refused(/does not run boltz-core's EtherSwap code/));
      lieAbout(proxy, 'GET', '/v2/chain/RBTC/contracts', (body) => ({ ...body, network: { chainId: 31 } }));
      await assert.rejects(client.contracts(), refused(/are on chain 31, but the node .* is chain 31337/));
      proxy.rewrite = (_m, _p, body) => body;
      const swaps = await client.contracts();

      // An honest first swap through the same proxy: the service's account is known from now on.
      const honest = await swaps.createSubmarine({ invoice: (await service.invoice('alice', 20_000)).invoice });
      const before = await provider.getBalance(address);
      const submarine = async (change: (body: Record<string, unknown>) => Record<string, unknown>) => {
        lieAbout(proxy, 'POST', '/v2/swap/submarine', change);
        return swaps.createSubmarine({ invoice: (await service.invoice('alice', 20_000)).invoice });
      };
      const height = await provider.getBlockNumber();
      await assert.rejects(submarine((b) => ({ ...b, address: erc20Swap })), refused(/address .* is not .*, the EtherSwap/));
      await assert.rejects(submarine((b) => ({ ...b, claimAddress: Wallet.createRandom().address })), refused(/is not .*, the account this service used before/));
      await assert.rejects(submarine((b) => ({ ...b, claimAddress: address })), refused(/is our own account/));
      await assert.rejects(submarine((b) => ({ ...b, claimAddress: 'nonsense' })), refused(/not an EVM address/));
      await assert.rejects(submarine((b) => ({ ...b, timeoutBlockHeight: height + 100_000 })), refused(/at most 11520 accepted/));
      await assert.rejects(submarine((b) => ({ ...b, timeoutBlockHeight: height + 10 })), refused(/at least 120 wanted/));
      await assert.rejects(submarine((b) => ({ ...b, expectedAmount: (b.expectedAmount as number) + 1_000 })), refused(/more than the advertised fees allow/));

      const reverse = (change: (body: Record<string, unknown>) => Record<string, unknown>) => {
        lieAbout(proxy, 'POST', '/v2/swap/reverse', change);
        return swaps.createReverse({ invoiceAmount: 30_000 });
      };
      await assert.rejects(reverse((b) => ({ ...b, lockupAddress: erc20Swap })), refused(/lockupAddress .* is not/));
      await assert.rejects(reverse((b) => ({ ...b, refundAddress: Wallet.createRandom().address })), refused(/the account this service used before/));
      await assert.rejects(reverse((b) => ({ ...b, onchainAmount: (b.onchainAmount as number) - 1_000 })), refused(/less than the advertised fees allow/));
      assert.equal(await provider.getBalance(address), before, 'nothing was sent');
      assert.deepEqual(await swaps.chain.lockupsOf(), []);

      // A reverse answer whose timelock differs by a block from Ferry's lock: paid, but never claimed.
      const shifted = await reverse((b) => ({ ...b, timeoutBlockHeight: (b.timeoutBlockHeight as number) + 1 }));
      proxy.rewrite = (_m, _p, body) => body;
      void service.lightning('alice').payInvoice({ paymentRequest: shifted.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 60 }).catch(() => undefined);
      const { result } = await follow(swaps, client, shifted);
      assert.equal(result.success, false);
      assert.match(result.message ?? '', /not claiming: the contract does not hold .* timelock \d+; locked for the hash: .* timelock \d+/);
      assert.equal(await provider.getBalance(address), before, 'no gas spent on a claim the contract would refuse');

      // A forged EIP-712 signature (another key's) is refused before refundCooperative is sent.
      const failing = await swaps.createSubmarine({ invoice: (await unpayableInvoice()).invoice });
      const lock = await swaps.lock(failing);
      assert.equal((await follow(swaps, client, failing, { refund: false })).result.status, 'invoice.failedToPay');
      const forger = Wallet.createRandom();
      lieAbout(proxy, 'GET', `/v2/swap/submarine/${failing.id}/refund`, () => ({ signature: forger.signingKey.sign(randomBytes(32)).serialized }));
      await assert.rejects(swaps.refund(failing), (error: unknown) => error instanceof RefundTooEarlyError && /refund signature is not .*'s for this lockup/.test(error.message));
      assert.equal(await provider.getBalance(address), before - lock.fee - swaps.submarineValues(failing).amount, 'no gas spent on the forgery');
      proxy.rewrite = (_m, _p, body) => body;
      assert.equal((await swaps.refund(failing)).path, 'cooperative', "the service's own signature refunds it");
      assert.equal(honest.contract.serviceAddress, failing.contract.serviceAddress);
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  // Last: it mines past a timelock of thousands of blocks.
  test('store lost: the lockup is found from the Lockup logs by refund address and refunded after the timelock', async () => {
    const { account, address } = await fundedAccount();
    const first = clientFor(account);
    const { invoice } = await unpayableInvoice();
    let values;
    try {
      const swaps = await first.contracts();
      const record = await swaps.createSubmarine({ invoice });
      await swaps.lock(record);
      values = swaps.submarineValues(record);
      const { result } = await follow(swaps, first, record, { refund: false });
      assert.equal(result.status, 'invoice.failedToPay');
    } finally {
      await first.close();
    }

    const fresh = clientFor(account);
    try {
      const swaps = await fresh.contracts();
      const recovered = await swaps.recoverable();
      assert.equal(recovered.length, 1);
      assert.equal(recovered[0].record, undefined, 'the new store knows nothing of it');
      const { txHash: _tx, blockHeight: _height, ...logged } = recovered[0].lockup;
      assert.deepEqual(logged, values, 'the Lockup event gives every value a refund takes');
      // Alone, before the timelock: refused by the SDK before anything is sent (Ferry would sign by preimage hash,
      // which the refund view's tests cover).
      await assert.rejects(swaps.refundLockup(recovered[0].lockup, { cooperative: false }), (error: unknown) => error instanceof RefundTooEarlyError);
      await provider.send('anvil_mine', [toQuantity(values.timelock - (await provider.getBlockNumber()) - 1)]);
      const before = await provider.getBalance(address);
      const refund = await swaps.refundLockup(recovered[0].lockup, { cooperative: false });
      assert.equal(refund.path, 'timelock');
      assert.equal(await provider.getBalance(address), before + values.amount - refund.fee);
      assert.deepEqual(await swaps.recoverable(), [], 'nothing left');
    } finally {
      await fresh.close();
    }
  });
});
