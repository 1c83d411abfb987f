// The regtest node's blocks and mempool, checked against Bitcoin's rules with hashes computed here
// independently: header proof of work, merkle root, BIP34 height, BIP141 witness commitment, subsidy
// halving, fee-rate ordering with parents first, long unconfirmed chains, timer mining and deep reorgs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256 } from '@noble/hashes/sha2.js';
import { CoreRpcClient, btcToSat, type DecodedTransaction } from '@ferry/sdk/chains/core-rpc.js';
import { startBitcoinDevnet, type BitcoinDevnet } from '@ferry/devnet/bitcoin/index.js';

const sha256d = (data: Uint8Array): Uint8Array => sha256(sha256(data));
const internal = (displayHex: string): Uint8Array => Uint8Array.from(Buffer.from(displayHex, 'hex')).reverse();

function merkle(hashes: Uint8Array[]): Uint8Array {
  let level = hashes;
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const right = level[i + 1] ?? level[i];
      next.push(sha256d(Uint8Array.from([...level[i], ...right])));
    }
    level = next;
  }
  return level[0];
}

let dataDir: string;
let devnet: BitcoinDevnet;
let rpc: CoreRpcClient;
let user: CoreRpcClient;
let operator: CoreRpcClient;
let burnAddress: string;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ferry-node-'));
  devnet = await startBitcoinDevnet({ dataDir, port: 0 });
  rpc = new CoreRpcClient({ url: devnet.rpcUrl, user: devnet.rpcUser, password: devnet.rpcPassword });
  user = rpc.wallet(devnet.wallets.user);
  operator = rpc.wallet(devnet.wallets.operator);
  await rpc.call('createwallet', ['sink']);
  burnAddress = await rpc.wallet('sink').getNewAddress();
});

after(async () => {
  await devnet.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Every input spending a transaction of the same block comes after it. */
function assertParentsFirst(txs: DecodedTransaction[]): void {
  const position = new Map(txs.map((tx, i) => [tx.txid, i]));
  txs.forEach((tx, i) => {
    for (const input of tx.vin) {
      const parent = input.txid === undefined ? undefined : position.get(input.txid);
      if (parent !== undefined) assert.ok(parent < i, `${tx.txid} at ${i} spends ${input.txid} at ${parent}`);
    }
  });
}

describe('blocks', () => {
  test('a mined block is well formed: PoW, merkle root, BIP34 height, witness commitment, fees in the coinbase', async () => {
    const txid = await user.sendToAddress(await operator.getNewAddress('', 'bech32m'), 0.3);
    const [hash] = devnet.node.mine(1, burnAddress);
    const block = await rpc.getBlockVerbose(hash);
    const raw = Buffer.from(await rpc.getBlockHex(hash), 'hex');

    const header = raw.subarray(0, 80);
    assert.equal(Buffer.from(sha256d(header)).reverse().toString('hex'), hash);
    const target = BigInt(0x7fffff) << BigInt(8 * (0x20 - 3));
    assert.ok(BigInt('0x' + hash) <= target, 'meets the regtest target');
    assert.equal(Buffer.from(header.subarray(36, 68)).reverse().toString('hex'), block.merkleroot);
    assert.deepEqual(merkle(block.tx.map((t) => internal(t.txid))), internal(block.merkleroot));

    const [coinbase, spend] = block.tx;
    assert.equal(spend.txid, txid);
    // BIP34: the coinbase scriptSig starts with the height as a script number.
    const height = block.height;
    const heightPush = Buffer.from([3, height & 0xff, (height >> 8) & 0xff, 0]).subarray(0, height < 0x80 ? 2 : height < 0x8000 ? 3 : 4);
    heightPush[0] = heightPush.length - 1;
    assert.ok(coinbase.vin[0].coinbase!.startsWith(heightPush.toString('hex')));

    const wtxids = block.tx.map((t, i) => (i === 0 ? new Uint8Array(32) : internal(t.hash)));
    const commitment = sha256d(Uint8Array.from([...merkle(wtxids), ...new Uint8Array(32)]));
    assert.equal(coinbase.vout[1].scriptPubKey.hex, '6a24aa21a9ed' + Buffer.from(commitment).toString('hex'));

    const entryFee = (block.tx[1] as DecodedTransaction & { fee?: number }).fee!;
    assert.ok(entryFee > 0);
    assert.equal(btcToSat(coinbase.vout[0].value), 5_000_000_000n + btcToSat(entryFee));
    assert.equal(coinbase.vout[0].scriptPubKey.address, burnAddress);
    assert.equal(block.weight, block.strippedsize * 3 + block.size);
  });

  test('the subsidy halves every 150 blocks', async () => {
    const height = await rpc.getBlockCount();
    assert.ok(height < 149);
    devnet.node.mine(148 - height, burnAddress);
    const [h149, h150] = devnet.node.mine(2, burnAddress);
    assert.equal((await rpc.getBlockHeader(h150)).height, 150);
    assert.equal((await rpc.getBlockVerbose(h149)).tx[0].vout[0].value, 50);
    assert.equal((await rpc.getBlockVerbose(h150)).tx[0].vout[0].value, 25);
  });
});

describe('mempool and block assembly', () => {
  test('higher fee rates are mined first, and a child never precedes its parent', async () => {
    // sendtoaddress with an explicit fee_rate (sat/vB), Core's tenth parameter.
    const send = (client: CoreRpcClient, satPerVbyte: number) =>
      client.call<string>('sendtoaddress', [burnAddress, 0.001, '', '', false, false, null, null, false, satPerVbyte]);
    const cheap = await send(user, 2);
    const dear = await send(operator, 25);
    // Each of these spends the previous one's change, starting from cheap's.
    const chained: string[] = [];
    for (let i = 0; i < 20; i++) chained.push(await send(user, 3 + (i % 7)));
    const [hash] = devnet.node.mine(1, burnAddress);
    const block = await rpc.getBlockVerbose(hash);
    const txids = block.tx.map((t) => t.txid);
    assert.equal(txids[1], dear, 'the best fee rate first');
    assert.equal(txids[2], cheap, 'then the only transaction whose parents are all mined');
    for (const txid of [...chained, dear]) assert.ok(txids.includes(txid));
    assertParentsFirst(block.tx);
    assert.deepEqual(await rpc.getRawMempool(), []);
  });

  test('a child paying for its parent takes the parent in ahead of a better-paying single transaction', async () => {
    const send = (client: CoreRpcClient, satPerVbyte: number) =>
      client.call<string>('sendtoaddress', [burnAddress, 0.001, '', '', false, false, null, null, false, satPerVbyte]);
    await rpc.call('createwallet', ['cpfp']);
    const lone = rpc.wallet('cpfp');
    await user.sendToAddress(await lone.getNewAddress(), 1);
    devnet.node.mine(1, burnAddress);
    const parent = await send(lone, 1);
    const medium = await send(operator, 10);
    const child = await send(lone, 50); // the cpfp wallet's only coin is the parent's change
    assert.deepEqual((await rpc.getMempoolEntry(child)).depends, [parent]);
    const [hash] = devnet.node.mine(1, burnAddress);
    const txids = (await rpc.getBlockVerbose(hash)).tx.map((t) => t.txid);
    assert.deepEqual(txids.slice(1), [parent, child, medium], 'the package (about 25 sat/vB together) before the 10 sat/vB payment');
  });

  test('a chain of 200 unconfirmed transactions is accepted and mined in one block quickly', async () => {
    // A wallet with a single coin: every payment spends the previous payment's change.
    await rpc.call('createwallet', ['chain']);
    const chain = rpc.wallet('chain');
    await user.sendToAddress(await chain.getNewAddress(), 1);
    devnet.node.mine(1, burnAddress);
    const started = Date.now();
    const txids: string[] = [];
    for (let i = 0; i < 200; i++) txids.push(await chain.sendToAddress(burnAddress, 0.0001));
    const accepted = Date.now() - started;
    const entry = await rpc.getMempoolEntry(txids[199]);
    assert.equal(entry.ancestorcount, 200);

    const mineStart = Date.now();
    const [hash] = devnet.node.mine(1, burnAddress);
    const mined = Date.now() - mineStart;
    assert.ok(mined < 2000, `assembling 200 txs took ${mined} ms`);
    const block = await rpc.getBlockVerbose(hash);
    assert.equal(block.tx.length, 201);
    assertParentsFirst(block.tx);
    assert.ok(accepted < 30_000, `accepting 200 txs took ${accepted} ms`);
  });
});

describe('timer mining', () => {
  test('blockIntervalMs mines blocks on its own', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-timer-'));
    const timed = await startBitcoinDevnet({ dataDir: dir, port: 0, fund: false, blockIntervalMs: 50 });
    try {
      assert.equal(timed.node.height, 0);
      const deadline = Date.now() + 5_000;
      while (timed.node.height < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      assert.ok(timed.node.height >= 3);
    } finally {
      await timed.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('deep reorg', () => {
  test('invalidating an old block drops mempool txs whose coins no longer exist and rewinds the wallets', async () => {
    const initial = await user.getBalances();
    // The user's first coins came from the coinbase at height 2: take the chain back below it.
    const hash = await rpc.getBlockHash(2);
    const pending = await user.sendToAddress(burnAddress, 1);
    assert.ok((await rpc.getRawMempool()).includes(pending));
    await rpc.invalidateBlock(hash);
    assert.equal(await rpc.getBlockCount(), 1);
    // Everything the user had descends from the vanished coinbase.
    assert.deepEqual(await rpc.getRawMempool(), []);
    assert.ok(initial.mine.trusted > 0);
    assert.deepEqual((await user.getBalances()).mine, { trusted: 0, untrusted_pending: 0, immature: 0 });
    // The chain grows again from height 1, through new hashes.
    const [replacement] = await rpc.generateToAddress(1, burnAddress);
    assert.notEqual(replacement, hash);
    assert.equal(await rpc.getBlockHash(2), replacement);
  });
});
