// `ferry swap` on RBTC, as child processes against a Ferry on ephemeral ports with the devnet's anvil: a reverse swap
// claimed into a mnemonic's account (--evm-mnemonic, --evm-account), a submarine swap locked from a key given in
// FERRY_EVM_KEY, a failed one left (--no-refund) and refunded with `ferry swap refund ID`, `refund --recover` with
// nothing left, and usage mistakes told apart from failures. Asserted on the accounts' balances and alice's invoices.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HDNodeWallet, JsonRpcProvider, Mnemonic, Wallet, parseEther, randomBytes } from 'ethers';
import { ferryCommand, jsonLines, runFerry } from '../helpers/ferry-process.ts';
import { startCliService, type Service } from '../client/support.ts';

let service: Service;
let env: Record<string, string | undefined>;
let provider: JsonRpcProvider;

before(async () => {
  ({ service, env } = await startCliService('ferry-swap-rbtc-'));
  provider = new JsonRpcProvider(service.info.evm.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
});
after(async () => {
  provider?.destroy();
  await service?.close();
});

const ferry = (...args: string[]) => ferryCommand(env, ...args);

/** 10 RBTC from the devnet's user account to `address`. */
async function fund(address: string): Promise<void> {
  const funder = new Wallet(service.info.evm.accounts.user.privateKey, provider);
  await (await funder.sendTransaction({ to: address, value: parseEther('10') })).wait();
}

/** What Ferry's channel to alice can send her, sat. */
async function ferryToAlice(): Promise<number> {
  const { ferry: node, alice } = service.info.lightning;
  const response = await fetch(`${node.restUrl}/v1/channels`, { headers: { 'Grpc-Metadata-macaroon': node.macaroon } });
  const { channels } = (await response.json()) as { channels: { remote_pubkey: string; local_balance: string }[] };
  return Number(channels.find((channel) => channel.remote_pubkey === alice.pubkey)!.local_balance);
}

async function invoiceState(paymentHash: string): Promise<string | undefined> {
  return (await service.lightning('alice').lookupInvoice(paymentHash))?.state;
}

describe('ferry swap with RBTC', { timeout: 600_000 }, () => {
  test('reverse --to RBTC into --evm-mnemonic --evm-account 1: alice pays, the claim lands in the account', async () => {
    const mnemonic = Mnemonic.fromEntropy(randomBytes(16)).phrase;
    const account = HDNodeWallet.fromPhrase(mnemonic, undefined, "m/44'/60'/0'/0/1").address;
    await fund(account);
    const before = await provider.getBalance(account);
    const swap = runFerry(['swap', 'reverse', '--to', 'RBTC', '--amount', '50000', '--evm-mnemonic', mnemonic, '--evm-account', '1', '--json'], env);
    const created = await swap.waitFor((e) => e.event === 'created');
    assert.equal(created.account, account);
    const paid = await ferry('devnet', 'pay', created.invoice as string, '--node', 'alice');
    assert.equal(JSON.parse(paid.stdout).status, 'SUCCEEDED', paid.stderr);
    assert.equal(await swap.exited, 0, swap.lines.join('\n'));
    const claimed = jsonLines(swap.lines.join('\n')).find((e) => e.event === 'claimed')!;
    assert.equal(await provider.getBalance(account), before + BigInt(created.onchainAmount as number) * 10n ** 10n - BigInt(claimed.fee as string));
  });

  test('submarine --from RBTC with FERRY_EVM_KEY: locked at once, alice paid; listed; a failed one refunded by ID', async () => {
    const key = Wallet.createRandom();
    await fund(key.address);
    const withKey = { ...env, FERRY_EVM_KEY: key.privateKey };
    const { invoice, paymentHash } = JSON.parse((await ferry('devnet', 'invoice', '30000', '--node', 'alice')).stdout);
    const before = await provider.getBalance(key.address);
    const done = await ferryCommand(withKey, 'swap', 'submarine', '--from', 'RBTC', '--invoice', invoice, '--json');
    assert.equal(done.code, 0, done.stderr + done.stdout);
    const [created] = jsonLines(done.stdout);
    assert.equal(created.account, key.address);
    assert.equal(await invoiceState(paymentHash), 'SETTLED');
    assert.ok((await provider.getBalance(key.address)) < before - BigInt(created.expectedAmount as number) * 10n ** 10n, 'the lockup and its gas left the account');
    assert.match((await ferry('swap', 'list')).stdout, new RegExp(`${created.id}\\s+submarine\\s+RBTC\\s+30000 sat\\s+transaction\\.claim`));

    // More than Ferry's channel to alice carries: the payment fails, the swap is left for `ferry swap refund`.
    const big = JSON.parse((await ferry('devnet', 'invoice', String((await ferryToAlice()) + 100_000), '--node', 'alice')).stdout);
    const failed = await ferryCommand(withKey, 'swap', 'submarine', '--from', 'RBTC', '--invoice', big.invoice, '--no-refund');
    assert.equal(failed.code, 1, failed.stderr + failed.stdout);
    const [, id] = failed.stdout.match(/swap (\w+): ended with invoice\.failedToPay: refund it with: ferry swap refund (\w+)/)!;
    const beforeRefund = await provider.getBalance(key.address);
    const refunded = await ferryCommand(withKey, 'swap', 'refund', id, '--json');
    assert.equal(refunded.code, 0, refunded.stderr);
    const [refund] = jsonLines(refunded.stdout);
    assert.equal(refund.path, 'cooperative');
    assert.equal(await provider.getBalance(key.address), beforeRefund + BigInt(refund.amount as string) - BigInt(refund.fee as string));
    const recover = await ferryCommand(withKey, 'swap', 'refund', '--recover');
    assert.equal(recover.code, 0, recover.stderr);
    assert.match(recover.stdout, new RegExp(`no lockup of ${key.address} is left`));
  });

  test('usage mistakes exit 2, a bad key 1, before anything is created', async () => {
    const usage = [
      ['swap', 'reverse', '--to', 'RBTC', '--amount', '20000', '--evm-key', '0x01', '--evm-mnemonic', 'a b c'],
      ['swap', 'reverse', '--to', 'RBTC', '--amount', '20000', '--address', '0x0000000000000000000000000000000000000001'],
      ['swap', 'chain', '--from', 'BTC', '--to', 'RBTC', '--amount', '20000'],
      ['swap', 'submarine', '--from', 'ETH', '--invoice', 'lnbcrt1'],
      ['swap', 'refund', '--recover', '--from', 'BTC'],
    ];
    for (const args of usage) assert.equal((await ferry(...args)).code, 2, args.join(' '));
    const bad = await ferry('swap', 'reverse', '--to', 'RBTC', '--amount', '20000', '--evm-key', 'nonsense');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /not a usable EVM account \(private key\)/);
  });
});
