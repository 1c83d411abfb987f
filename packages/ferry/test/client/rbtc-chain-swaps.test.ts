// Chain swaps with an RBTC side through the client SDK (SwapClient.contractChains) against Ferry on the devnet's
// Bitcoin node and anvil: BTC → RBTC (our BTC lockup, Ferry's EtherSwap lock claimed into our account, Ferry's claim
// of our BTC co-signed) and RBTC → BTC (our EtherSwap lock for Ferry's account, Ferry's BTC lockup claimed
// cooperatively, and alone by the claim leaf), followed to their end; a failed swap each way refunded (our RBTC with
// Ferry's EIP-712 signature, or alone after the timelock; our BTC with MuSig2), also with the store lost (the swaps
// found again by the account's and the rescue key's restores); a lying answer refused before anything moves. Asserted on the account and wallet balances, the contract's swaps() and which transaction spent each lockup.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonRpcProvider, Wallet, parseEther, toQuantity } from 'ethers';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import {
  FileClientStore,
  RefundTooEarlyError,
  SwapClient,
  VerificationError,
  followContractChainSwap,
  type ContractChainFollowEvent,
  type ContractChainRecord,
  type ContractChainSwaps,
} from '@ferry/sdk/client/node.js';
import { TamperingProxy, startService, temporaryDir, type Service } from './support.ts';

const WEI = 10n ** 10n;
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

/** A new account with 10 RBTC from the devnet's user account: its balance moves only by what the test does. */
async function fundedAccount(): Promise<{ privateKey: string; address: string }> {
  const funder = new Wallet(service.info.evm.accounts.user.privateKey, provider);
  const wallet = Wallet.createRandom();
  await (await funder.sendTransaction({ to: wallet.address, value: parseEther('10') })).wait();
  return { privateKey: wallet.privateKey, address: wallet.address };
}

function clientFor(privateKey: string, serviceUrl = service.apiUrl): SwapClient {
  return new SwapClient({ serviceUrl, network: 'regtest', store: new FileClientStore(temporaryDir('ferry-rbtc-chain-')), evm: { rpcUrl: service.info.evm.rpcUrl, account: { privateKey } } });
}

/** Follows to the end, mining a Bitcoin block whenever our BTC lockup waits for one. */
async function follow(swaps: ContractChainSwaps, client: SwapClient, record: ContractChainRecord, destination: string, options: { refund?: boolean; cooperative?: boolean } = {}) {
  const stream = client.statusStream({ pollIntervalMs: 200 });
  const events: ContractChainFollowEvent[] = [];
  const mined = new Set<string>();
  try {
    const result = await followContractChainSwap(swaps, record, {
      stream,
      retryMs: 500,
      destination: () => destination,
      ...options,
      onEvent: (event) => {
        events.push(event);
        const status = event.type === 'status' ? event.update.status : undefined;
        if (status !== undefined && ['transaction.mempool', 'transaction.lockupFailed'].includes(status) && !mined.has(status)) {
          mined.add(status);
          void service.mine();
        }
      },
    });
    return { result, events };
  } finally {
    stream.close();
  }
}

/** Inputs of a Bitcoin transaction: which outputs it spent, and its witnesses. */
async function inputsOf(txid: string) {
  const tx = await service.node.getRawTransaction(txid);
  return tx.vin.map((input) => ({ txid: input.txid, vout: input.vout, witness: input.txinwitness ?? [] }));
}

/** What Ferry recorded of its claim of the user's lockup. */
async function ferryClaim(id: string): Promise<string | undefined> {
  return ((await service.ferry.storage.swaps.get(id))?.data as { claimTransaction?: { txid: string } }).claimTransaction?.txid;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('client SDK: chain swaps with an RBTC side', { timeout: 600_000 }, () => {
  test('BTC → RBTC: our BTC locked, Ferry\'s RBTC claimed into our account, our BTC claimed by Ferry with our signature', async () => {
    const { privateKey, address } = await fundedAccount();
    const client = clientFor(privateKey);
    try {
      const swaps = await client.contractChains();
      const record = await swaps.create({ from: 'BTC', to: 'RBTC', userLockAmount: 100_000 });
      assert.deepEqual(client.store!.loadContractChain(record.id), record, 'stored before anything moves');
      assert.ok(record.refundFiles, 'with refund files for our BTC lockup');
      assert.equal(record.contractSide.lockedBy, 'service');
      const values = swaps.contractValues(record);
      assert.equal(values.claimAddress, address);

      const lockupTxid = await service.user.sendToAddress(record.utxoSide.lockupAddress, satToBtc(record.userLockAmount));
      const before = await provider.getBalance(address);
      const { result, events } = await follow(swaps, client, record, 'unused');
      assert.equal(result.success, true, result.message);
      assert.equal(result.status, 'transaction.claimed');
      const claimed = events.find((event) => event.type === 'claimed');
      assert.ok(claimed?.type === 'claimed');
      assert.equal(await provider.getBalance(address), before + BigInt(record.serverLockAmount) * WEI - claimed.claim.fee, 'our account has what Ferry agreed to lock, less the claim gas');
      assert.equal(await swaps.chain.isLocked(values), false, "Ferry's lock left the contract");
      assert.ok(events.some((event) => event.type === 'cosigned'), "we signed Ferry's key-path claim");

      const theirs = await until("Ferry's claim", () => ferryClaim(record.id));
      const [input] = await inputsOf(theirs);
      assert.equal(input.txid, lockupTxid, "Ferry's claim spends our BTC lockup");
      assert.equal(input.witness.length, 1, 'through the key path, with our signature');
      assert.equal(client.store!.loadContractChain(record.id).contractSide.claim?.txHash, claimed.claim.id);
    } finally {
      await client.close();
    }
  });

  for (const cooperative of [true, false]) {
    test(`RBTC → BTC: our RBTC locked for Ferry, its BTC lockup claimed ${cooperative ? 'cooperatively' : 'alone by the claim leaf'}, our lock claimed by Ferry`, async () => {
      const { privateKey, address } = await fundedAccount();
      const client = clientFor(privateKey);
      try {
        const swaps = await client.contractChains();
        const record = await swaps.create({ from: 'RBTC', to: 'BTC', userLockAmount: 100_000 });
        assert.equal(record.contractSide.lockedBy, 'user');
        const values = swaps.contractValues(record);
        assert.equal(values.refundAddress, address);
        assert.equal(values.claimAddress, record.contractSide.contract.serviceAddress);
        const before = await provider.getBalance(address);
        const lock = await swaps.lock(record);
        assert.equal(await provider.getBalance(address), before - values.amount - lock.fee, 'our account paid the lock and its gas');
        await assert.rejects(swaps.lock(record), /locked already/, 'never twice');

        const destination = await service.user.getNewAddress();
        const walletBefore = await service.userBalance();
        const { result, events } = await follow(swaps, client, record, destination, { cooperative });
        assert.equal(result.success, true, result.message);
        const claimed = events.find((event) => event.type === 'claimed');
        assert.ok(claimed?.type === 'claimed');
        const stored = client.store!.loadContractChain(record.id);
        assert.equal(stored.utxoSide.claim?.path, cooperative ? 'key' : 'script', cooperative ? "claimed with Ferry's signature" : 'claimed with the preimage alone');
        const [ours] = await inputsOf(claimed.claim.id);
        assert.equal(ours.txid, stored.utxoSide.lockup?.txid, "our claim spends Ferry's lockup");
        assert.equal(ours.witness.length, cooperative ? 1 : 4, cooperative ? 'one aggregated signature' : 'signature, preimage, leaf and control block');
        await service.mine();
        assert.equal((await service.userBalance()) - walletBefore, BigInt(record.serverLockAmount) - claimed.claim.fee, 'the wallet got what Ferry locked, less the claim fee');

        assert.equal(await swaps.chain.isLocked(values), false, 'our lock left the contract');
        const theirs = await until("Ferry's claim", () => ferryClaim(record.id));
        const receipt = await provider.getTransactionReceipt(theirs);
        assert.equal(receipt?.status, 1, "Ferry's claim of our lock is mined");
        assert.equal(receipt?.from.toLowerCase(), record.contractSide.contract.serviceAddress.toLowerCase());
      } finally {
        await client.close();
      }
    });
  }

  test('RBTC → BTC failed (a lock of the wrong amount): our lock refunded at once with Ferry\'s EIP-712 signature', async () => {
    const { privateKey, address } = await fundedAccount();
    const client = clientFor(privateKey);
    try {
      const swaps = await client.contractChains();
      const record = await swaps.create({ from: 'RBTC', to: 'BTC', userLockAmount: 100_000 });
      const values = { ...swaps.contractValues(record), amount: swaps.contractValues(record).amount - WEI };
      const before = await provider.getBalance(address);
      const lock = await swaps.chain.lock(values);
      const { result, events } = await follow(swaps, client, record, 'unused');
      assert.equal(result.success, false);
      assert.equal(result.status, 'transaction.lockupFailed');
      const refunded = events.find((event) => event.type === 'refunded');
      assert.ok(refunded?.type === 'refunded', JSON.stringify(events.filter((e) => e.type === 'warning')));
      assert.equal(client.store!.loadContractChain(record.id).contractSide.refund?.path, 'cooperative');
      assert.equal(await swaps.chain.isLocked({ ...values, refundAddress: address }), false);
      assert.equal(await provider.getBalance(address), before - lock.fee - refunded.refund.fee, 'all back but the gas');
    } finally {
      await client.close();
    }
  });

  test('BTC → RBTC failed (an underpaid lockup): our BTC refunded cooperatively, Ferry never locked', async () => {
    const { privateKey } = await fundedAccount();
    const client = clientFor(privateKey);
    try {
      const swaps = await client.contractChains();
      const record = await swaps.create({ from: 'BTC', to: 'RBTC', userLockAmount: 100_000 });
      const lockupTxid = await service.user.sendToAddress(record.utxoSide.lockupAddress, satToBtc(record.userLockAmount - 10_000));
      const destination = await service.user.getNewAddress();
      const { result, events } = await follow(swaps, client, record, destination);
      assert.equal(result.success, false);
      const refunded = events.find((event) => event.type === 'refunded');
      assert.ok(refunded?.type === 'refunded', JSON.stringify(events.filter((e) => e.type === 'warning')));
      const stored = client.store!.loadContractChain(record.id);
      assert.equal(stored.utxoSide.refund?.path, 'key', 'refunded through the key path, with Ferry\'s signature');
      const [input] = await inputsOf(refunded.refund.id);
      assert.equal(input.txid, lockupTxid, 'the refund spends our lockup');
      assert.equal(stored.utxoSide.refund?.amount, record.userLockAmount - 10_000 - Number(refunded.refund.fee), 'what we locked, less the refund fee');
      assert.equal(stored.utxoSide.refund?.address, destination);
      assert.deepEqual(await swaps.chain.lockupsFor(record.preimageHash), [], 'Ferry never locked');
    } finally {
      await client.close();
    }
  });

  test('a lying answer is refused before anything moves: contract, claim and refund address, timelock, amount', async () => {
    const proxy = await TamperingProxy.start(service.apiUrl);
    const { privateKey, address } = await fundedAccount();
    const client = clientFor(privateKey, proxy.url);
    try {
      const swaps = await client.contractChains();
      const other = Wallet.createRandom().address;
      const { erc20Swap } = service.info.evm.contracts;
      const lie = (change: (body: Record<string, any>) => Record<string, unknown>) => {
        proxy.rewrite = (method, path, body) => (method === 'POST' && path === '/v2/swap/chain' ? change(body as Record<string, any>) : body);
      };
      const refused = (pattern: RegExp) => (error: unknown) => error instanceof VerificationError && pattern.test(error.message);
      const toRbtc = () => swaps.create({ from: 'BTC', to: 'RBTC', userLockAmount: 100_000 });
      const fromRbtc = () => swaps.create({ from: 'RBTC', to: 'BTC', userLockAmount: 100_000 });
      lie((b) => ({ ...b, claimDetails: { ...b.claimDetails, lockupAddress: erc20Swap } }));
      await assert.rejects(toRbtc(), refused(/lockupAddress .* is not .*, the EtherSwap/));
      lie((b) => ({ ...b, claimDetails: { ...b.claimDetails, claimAddress: other } }));
      await assert.rejects(toRbtc(), refused(/claimAddress .* is not our account/));
      lie((b) => ({ ...b, claimDetails: { ...b.claimDetails, refundAddress: address } }));
      await assert.rejects(toRbtc(), refused(/refundAddress .* is our own account/));
      lie((b) => ({ ...b, claimDetails: { ...b.claimDetails, amount: b.claimDetails.amount - 5_000 } }));
      await assert.rejects(toRbtc(), refused(/less than the advertised rate and fees allow/));
      lie((b) => ({ ...b, lockupDetails: { ...b.lockupDetails, timeoutBlockHeight: b.lockupDetails.timeoutBlockHeight + 1 } }));
      await assert.rejects(toRbtc(), refused(/swap tree is not the one/));
      lie((b) => ({ ...b, lockupDetails: { ...b.lockupDetails, claimAddress: address } }));
      await assert.rejects(fromRbtc(), refused(/claimAddress .* is our own account/));
      lie((b) => ({ ...b, lockupDetails: { ...b.lockupDetails, timeoutBlockHeight: b.lockupDetails.timeoutBlockHeight + 100_000 } }));
      await assert.rejects(fromRbtc(), refused(/at most 11520 accepted/));
      lie((b) => ({ ...b, lockupDetails: { ...b.lockupDetails, amount: b.lockupDetails.amount + 1 } }));
      await assert.rejects(fromRbtc(), refused(/we would lock 100001, not the 100000 we asked for/));
      assert.deepEqual(client.store!.listContractChains(), [], 'nothing stored, so nothing can be locked');
      proxy.rewrite = (_m, _p, body) => body;
      const honest = await fromRbtc();
      assert.equal(honest.contractSide.contract.serviceAddress, swaps.contractValues(honest).claimAddress);
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  test('the store lost: the account\'s restore names its RBTC → BTC swap, whose lock is refunded with the chain signature; the rescue key gives a BTC → RBTC lockup\'s refund file', async () => {
    const { privateKey, address } = await fundedAccount();
    const client = clientFor(privateKey);
    const fresh = clientFor(privateKey); // the same account and, below, the same rescue key: nothing of the swaps stored
    try {
      const swaps = await client.contractChains();
      const out = await swaps.create({ from: 'RBTC', to: 'BTC', userLockAmount: 100_000 });
      const values = { ...swaps.contractValues(out), amount: swaps.contractValues(out).amount - 3n * WEI };
      await swaps.chain.lock(values);
      assert.equal((await follow(swaps, client, out, 'unused', { refund: false })).result.status, 'transaction.lockupFailed');
      const into = await swaps.create({ from: 'BTC', to: 'RBTC', userLockAmount: 100_000 });
      const lockupTxid = await service.user.sendToAddress(into.utxoSide.lockupAddress, satToBtc(into.userLockAmount - 10_000));
      assert.equal((await follow(swaps, client, into, 'unused', { refund: false })).result.success, false);

      // The account's restore names the chain swap of the lock (not stored); its lock found again is refunded with
      // Ferry's signature of that chain swap, asked by id.
      const contracts = await fresh.contracts();
      const restored = await contracts.restore();
      const named = restored.chains.find((swap) => swap.id === out.id);
      assert.deepEqual(named, { id: out.id, preimageHash: out.preimageHash, status: 'transaction.lockupFailed', from: 'RBTC', to: 'BTC' });
      const [lock] = (await contracts.recoverable()).filter((found) => found.lockup.preimageHash === out.preimageHash);
      assert.equal(lock.lockup.amount, values.amount);
      const before = await provider.getBalance(address);
      const refund = await contracts.refundLockup(lock.lockup, { id: named!.id, swapType: 'chain' });
      assert.equal(refund.path, 'cooperative');
      assert.equal(await provider.getBalance(address), before + values.amount - refund.fee, 'all back but the refund gas');
      assert.equal(await contracts.chain.isLocked({ ...values, refundAddress: address }), false);

      // The rescue key's restore stores no record of the swap into RBTC but gives its BTC lockup's refund file.
      const byKey = await fresh.restore(client.store!.rescueKey());
      const refundable = byKey.refundable.find((entry) => entry.file.id === into.id);
      assert.ok(refundable, `the BTC → RBTC swap is refundable by the key: ${JSON.stringify(byKey.skipped)}`);
      assert.deepEqual([refundable.file.type, refundable.file.currency, refundable.lockupTxid], ['chain', 'BTC', lockupTxid]);
      assert.ok(!byKey.restored.some((record) => record.id === into.id), 'not stored: its claim is the account\'s');
      const destination = await service.user.getNewAddress();
      const refunded = await fresh.refundFromFile(refundable.file, { destination, lockupTxid: refundable.lockupTxid });
      const [input] = await inputsOf(refunded.txid);
      assert.equal(input.txid, lockupTxid, 'the refund spends our lockup');
      assert.equal(refunded.path, 'key', 'with Ferry\'s signature');
      assert.equal(Number(refunded.amount) + Number(refunded.fee), into.userLockAmount - 10_000);
    } finally {
      await client.close();
      await fresh.close();
    }
  });

  // Last: it mines past a timelock of thousands of blocks.
  test('RBTC → BTC failed, not refunded while following: refunded alone once the timelock is reached', async () => {
    const { privateKey, address } = await fundedAccount();
    const client = clientFor(privateKey);
    try {
      const swaps = await client.contractChains();
      const record = await swaps.create({ from: 'RBTC', to: 'BTC', userLockAmount: 100_000 });
      const values = { ...swaps.contractValues(record), amount: swaps.contractValues(record).amount - 2n * WEI };
      const lock = await swaps.chain.lock(values);
      const before = await provider.getBalance(address);
      const { result } = await follow(swaps, client, record, 'unused', { refund: false });
      assert.equal(result.status, 'transaction.lockupFailed', result.message);
      await assert.rejects(swaps.refundContract(record, { cooperative: false }), RefundTooEarlyError, 'not before the timelock without Ferry');
      await provider.send('anvil_mine', [toQuantity(values.timelock - (await provider.getBlockNumber()) - 1)]);
      const refund = await swaps.refundContract(record, { cooperative: false });
      assert.equal(refund.path, 'timelock');
      assert.equal(refund.lockup.amount, values.amount, 'the lock we made, of the amount we sent');
      assert.equal(await provider.getBalance(address), before + values.amount - refund.fee, 'all back but the refund gas');
      assert.equal(await swaps.chain.isLocked({ ...values, refundAddress: address }), false);
      const stored = client.store!.loadContractChain(record.id).contractSide;
      assert.equal(stored.refund?.path, 'timelock');
      assert.equal(stored.lockup?.txHash, lock.txHash, 'found from the Lockup logs of our account');
    } finally {
      await client.close();
    }
  });
});
