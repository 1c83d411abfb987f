// Restore by EVM address, end to end on the devnet's anvil: a wallet with RBTC swaps loses its client store but keeps
// its EVM mnemonic; `ferry swap restore --evm-mnemonic` finds its swaps through POST /v2/swap/restore (the address'
// signed proof), refunds the failed submarine swap and claims the pending reverse swap into the account. The service
// answers the reference's shapes, and refuses forged, mismatched, stale and replayed proofs and malformed addresses.
// Asserted on the account's balance, the contract, alice's payment and invoice, and the answers.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { HDNodeWallet, JsonRpcProvider, Mnemonic, Wallet, getAddress, parseEther, randomBytes } from 'ethers';
import { evmRestoreMessage } from '@ferry/sdk/protocol/index.js';
import { ferryCommand, jsonLines } from '../helpers/ferry-process.ts';
import { startCliService, temporaryDir, type Service } from '../client/support.ts';

let service: Service;
let env: Record<string, string | undefined>;
let provider: JsonRpcProvider;

before(async () => {
  ({ service, env } = await startCliService('ferry-swap-restore-rbtc-'));
  provider = new JsonRpcProvider(service.info.evm.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
});
after(async () => {
  provider?.destroy();
  await service?.close();
});

const WEI = 10n ** 10n;

async function statusOf(id: string): Promise<string> {
  return ((await (await fetch(`${service.apiUrl}/v2/swap/${id}`)).json()) as { status: string }).status;
}

async function until(id: string, status: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await statusOf(id)) !== status) {
    if (Date.now() > deadline) throw new Error(`swap ${id} is ${await statusOf(id)}, not ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** What Ferry's channel to alice can send her, sat: an invoice above it cannot be paid. */
async function ferryToAlice(): Promise<number> {
  const { ferry: node, alice } = service.info.lightning;
  const response = await fetch(`${node.restUrl}/v1/channels`, { headers: { 'Grpc-Metadata-macaroon': node.macaroon } });
  const { channels } = (await response.json()) as { channels: { remote_pubkey: string; local_balance: string }[] };
  return Number(channels.find((channel) => channel.remote_pubkey === alice.pubkey)!.local_balance);
}

async function restoreCall(body: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${service.apiUrl}/v2/swap/restore`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, json: await response.json() };
}

async function proof(wallet: { address: string; signMessage(message: string): Promise<string> }, timestamp = Math.floor(Date.now() / 1000), address = getAddress(wallet.address)) {
  return { address, timestamp, signature: await wallet.signMessage(evmRestoreMessage(getAddress(address), timestamp)) };
}

test('lost store, kept EVM mnemonic: restore by address refunds the failed RBTC submarine swap and claims the pending reverse swap', { timeout: 600_000 }, async () => {
  const mnemonic = Mnemonic.fromEntropy(randomBytes(16)).phrase;
  const wallet = HDNodeWallet.fromPhrase(mnemonic, undefined, "m/44'/60'/0'/0/0");
  const funder = new Wallet(service.info.evm.accounts.user.privateKey, provider);
  await (await funder.sendTransaction({ to: wallet.address, value: parseEther('10') })).wait();
  const ferry = (...args: string[]) => ferryCommand(env, ...args);

  // Before the loss: a submarine swap whose payment fails (left unrefunded), and a reverse swap alice is paying.
  const big = JSON.parse((await ferry('devnet', 'invoice', String((await ferryToAlice()) + 100_000), '--node', 'alice')).stdout);
  const failed = await ferry('swap', 'submarine', '--from', 'RBTC', '--invoice', big.invoice, '--evm-mnemonic', mnemonic, '--no-refund', '--json');
  assert.equal(failed.code, 1, failed.stderr + failed.stdout);
  const submarine = jsonLines(failed.stdout)[0];
  assert.equal(await statusOf(submarine.id as string), 'invoice.failedToPay');
  const created = await ferry('swap', 'reverse', '--to', 'RBTC', '--amount', '50000', '--evm-mnemonic', mnemonic, '--no-wait', '--json');
  assert.equal(created.code, 0, created.stderr);
  const reverse = jsonLines(created.stdout)[0];
  const payment = service.lightning('alice').payInvoice({ paymentRequest: reverse.invoice as string, feeLimitMsat: 10_000n, timeoutSeconds: 120 });
  await until(reverse.id as string, 'transaction.confirmed');

  // The service answers the reference's EVM shapes, for this address only.
  const answer = await restoreCall(await proof(wallet, Math.floor(Date.now() / 1000) - 5));
  assert.equal(answer.status, 200, JSON.stringify(answer.json));
  const byId = new Map(answer.json.map((swap: any) => [swap.id, swap]));
  assert.deepEqual([...byId.keys()].sort(), [submarine.id, reverse.id].sort());
  const contract = service.info.evm.contracts.etherSwap;
  const sub = byId.get(submarine.id) as any;
  assert.deepEqual(Object.keys(sub.refundDetails).sort(), ['amount', 'claimAddress', 'contractAddress', 'timeoutBlockHeight', 'transaction', 'type']);
  assert.equal(sub.refundDetails.type, 'evm');
  assert.equal(getAddress(sub.refundDetails.contractAddress), getAddress(contract));
  assert.equal(getAddress(sub.refundDetails.claimAddress), getAddress(submarine.claimAddress as string), "Ferry's account, who signs the cooperative refund");
  assert.equal(sub.refundDetails.amount, submarine.expectedAmount);
  assert.equal(sub.refundDetails.timeoutBlockHeight, submarine.timeoutBlockHeight);
  assert.match(sub.refundDetails.transaction.id, /^0x[0-9a-f]{64}$/);
  assert.equal(sub.claimDetails, undefined);
  const rev = byId.get(reverse.id) as any;
  assert.equal(rev.claimDetails.type, 'evm');
  assert.equal(getAddress(rev.claimDetails.claimAddress), wallet.address);
  assert.equal(rev.claimDetails.amount, reverse.onchainAmount);
  assert.equal(rev.from, 'BTC');
  assert.equal(rev.to, 'RBTC');

  // The store is lost: a new client directory, nothing but the mnemonic.
  const lost = { ...env, FERRY_CLIENT_DIR: temporaryDir('ferry-rbtc-lost-') };
  const before = await provider.getBalance(wallet.address);
  const restored = await ferryCommand(lost, 'swap', 'restore', '--evm-mnemonic', mnemonic, '--json');
  assert.equal(restored.code, 0, restored.stderr + restored.stdout);
  const events = jsonLines(restored.stdout);
  assert.deepEqual(events.filter((e) => e.event === 'restored').map((e) => e.id).sort(), [submarine.id, reverse.id].sort());
  const refund = events.find((e) => e.event === 'refunded')!;
  assert.equal(refund.id, submarine.id);
  assert.equal(refund.path, 'cooperative');
  const claimed = events.find((e) => e.event === 'claimed')!;
  assert.equal(claimed.id, reverse.id);
  assert.equal(
    await provider.getBalance(wallet.address),
    before + BigInt(refund.amount as string) - BigInt(refund.fee as string) + BigInt(reverse.onchainAmount as number) * WEI - BigInt(claimed.fee as string),
    'the failed lock back and the reverse swap claimed, less the gas',
  );
  assert.equal(BigInt(refund.amount as string), BigInt(submarine.expectedAmount as number) * WEI);
  assert.equal((await payment).status, 'SUCCEEDED', 'the claim revealed the preimage: alice paid');
  assert.equal((await service.lightning('alice').lookupInvoice(big.paymentHash))?.state, 'OPEN');
  assert.match((await ferryCommand(lost, 'swap', 'list')).stdout, new RegExp(`${reverse.id}\\s+reverse\\s+RBTC`));

  // Run again: everything is known, nothing moves.
  const again = await ferryCommand(lost, 'swap', 'restore', '--evm-mnemonic', mnemonic, '--json');
  assert.equal(again.code, 0, again.stderr);
  assert.equal(jsonLines(again.stdout).find((e) => e.event === 'summary')!.known, 2);
});

test('restore by address refuses forged, mismatched, stale and replayed proofs and malformed addresses with a 4xx', { timeout: 60_000 }, async () => {
  const owner = Wallet.createRandom();
  const thief = Wallet.createRandom();
  const now = Math.floor(Date.now() / 1000);
  const refusals: [unknown, number, RegExp][] = [
    // Signed by another key for the owner's address.
    [{ ...(await proof(thief, now)), address: owner.address }, 422, /does not match address/],
    // The owner's signature over another timestamp than the one sent.
    [{ ...(await proof(owner, now - 1)), timestamp: now }, 422, /does not match address/],
    [await proof(owner, now - 120), 422, /validity window/],
    [await proof(owner, now + 120), 422, /validity window/],
    [{ ...(await proof(owner, now)), signature: '0x' + '00'.repeat(65) }, 422, /invalid signature/],
    // Mixed case that is not the EIP-55 checksum.
    [{ ...(await proof(owner, now)), address: owner.address.slice(0, 2) + [...owner.address.slice(2)].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('') }, 422, /invalid address/],
    [{ ...(await proof(owner, now)), address: '0x1234' }, 400, /address/],
    [{ ...(await proof(owner, now)), signature: 'zz' }, 400, /signature/],
    [{ ...(await proof(owner, now)), timestamp: 'now' }, 400, /timestamp/],
  ];
  for (const [body, status, error] of refusals) {
    const answer = await restoreCall(body);
    assert.equal(answer.status, status, `${JSON.stringify(body)}: ${JSON.stringify(answer.json)}`);
    assert.match(answer.json.error, error);
  }
  // A good proof, lower case or checksummed, without 0x: answered (nothing of this address); once only.
  const good = await proof(owner, now - 2);
  assert.deepEqual(await restoreCall({ ...good, address: good.address.toLowerCase().slice(2), signature: good.signature.slice(2) }), { status: 200, json: [] });
  const replayed = await restoreCall(good);
  assert.equal(replayed.status, 422);
  assert.match(replayed.json.error, /used already/);
  // The deprecated rescue and the index take keys only: an address is refused as the reference does, with a 422.
  for (const path of ['/v2/swap/rescue', '/v2/swap/restore/index']) {
    const response = await fetch(`${service.apiUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(await proof(owner, now - 3)) });
    assert.equal(response.status, 422, path);
    assert.deepEqual(await response.json(), { error: 'address lookup is only supported for restore' });
  }
});
