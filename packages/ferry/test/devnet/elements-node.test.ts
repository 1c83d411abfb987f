// The devnet's Elements regtest node over real JSON-RPC (port 0): mining and coinbase maturity, a confidential
// spend of a matured coinbase accepted, mined and shown with its commitments, elementsd's rejections (double
// spend, missing input, immature coinbase, forged range proof, no fee, a fee under the relay floor), invalidateblock
// and reopening the store.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { address, issuance, networks } from 'liquidjs-lib';
import { startElementsDevnet, type ElementsDevnet } from '@ferry/devnet/elements/index.js';
import { REGTEST_GENESIS_BLOCK_HASH, REGTEST_POLICY_ASSET } from '@ferry/devnet/elements/verify/index.js';
import { FEE, Transaction, fund, newKey, p2wpkh, setup, spendP2wpkh, type Funding, type Key } from '../helpers/liquid.ts';
import { Rpc } from '../helpers/devnet-rpc.ts';

const SUBSIDY = 5_000_000_000;
/** elementsd's default -parentgenesisblockhash: Bitcoin regtest's genesis. */
const BITCOIN_REGTEST_GENESIS = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';

const addressOf = (key: Key): string => address.fromOutputScript(p2wpkh(key), networks.regtest);

let dataDir: string;
let devnet: ElementsDevnet;
let rpc: Rpc;
let payer: Key;
let miner: Key;
let coinbaseTxid: string;

/** A spend of the payer's coinbase coin to one blinded P2WPKH output of `owner`. */
function spendCoinbase(owner: Key, fee = FEE): Funding {
  return fund(payer, [{ script: p2wpkh(owner), amount: SUBSIDY - fee }], { coin: { txid: coinbaseTxid, vout: 0 }, fee });
}

before(async () => {
  await setup();
  dataDir = mkdtempSync(join(tmpdir(), 'ferry-elements-node-'));
  devnet = await startElementsDevnet({ dataDir, port: 0, fund: false });
  rpc = new Rpc(devnet);
  payer = newKey();
  miner = newKey();
});

after(async () => {
  await devnet.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('Elements devnet node', () => {
  test('starts at the elementsregtest genesis', async () => {
    const info = await rpc.call<{ chain: string; blocks: number; bestblockhash: string }>('getblockchaininfo');
    assert.equal(info.chain, 'elementsregtest');
    assert.equal(info.blocks, 0);
    assert.equal(await rpc.call('getblockhash', 0), REGTEST_GENESIS_BLOCK_HASH);
    // The genesis coinbase commits to the chain arguments the policy asset (L-BTC) derives from.
    const genesis = await rpc.call<{ tx: { vin: { coinbase: string }[] }[] }>('getblock', REGTEST_GENESIS_BLOCK_HASH, 2);
    const commitment = Buffer.from(genesis.tx[0].vin[0].coinbase, 'hex').subarray(1);
    const entropy = issuance.generateEntropy({ txHash: commitment, vout: 0 }, Buffer.from(BITCOIN_REGTEST_GENESIS, 'hex').reverse());
    assert.equal(Buffer.from(issuance.calculateAsset(entropy)).reverse().toString('hex'), REGTEST_POLICY_ASSET);
  });

  test('mines to an unconfidential address; the coinbase pays explicit L-BTC and matures after 100 blocks', async () => {
    const [hash] = await rpc.call<string[]>('generatetoaddress', 1, addressOf(payer));
    const block = await rpc.call<{ height: number; tx: { txid: string; vout: Record<string, unknown>[] }[] }>('getblock', hash, 2);
    assert.equal(block.height, 1);
    coinbaseTxid = block.tx[0].txid;
    assert.equal(block.tx[0].vout[0].value, 50);
    assert.equal(block.tx[0].vout[0].asset, REGTEST_POLICY_ASSET);
    assert.equal((block.tx[0].vout[0].scriptPubKey as { address: string }).address, addressOf(payer));
    const coin = await rpc.call<{ confirmations: number; coinbase: boolean; value: number }>('gettxout', coinbaseTxid, 0);
    assert.deepEqual([coin.confirmations, coin.coinbase, coin.value], [1, true, 50]);

    const immature = spendCoinbase(newKey()).tx.toHex();
    const early = await rpc.error('sendrawtransaction', immature);
    assert.equal(early.code, -26);
    assert.equal(early.message, 'bad-txns-premature-spend-of-coinbase, tried to spend coinbase at depth 1');

    // To a confidential address: coinbases stay explicit.
    const confidential = address.toConfidential(addressOf(miner), newKey().publicKey);
    await rpc.call('generatetoaddress', 98, confidential);
    const [atTip99] = await rpc.call<{ allowed: boolean; 'reject-reason': string }[]>('testmempoolaccept', [immature]);
    assert.deepEqual([atTip99.allowed, atTip99['reject-reason']], [false, 'bad-txns-premature-spend-of-coinbase']);
    await rpc.call('generatetoaddress', 1, confidential);
    const [atTip100] = await rpc.call<{ allowed: boolean }[]>('testmempoolaccept', [immature]);
    assert.equal(atTip100.allowed, true);
    const tip = await rpc.call<{ tx: { vout: Record<string, unknown>[] }[] }>('getblock', await rpc.call('getbestblockhash'), 2);
    assert.equal(tip.tx[0].vout[0].value, 50);
  });

  test('refuses a transaction without a fee output', async () => {
    const noFee = spendCoinbase(newKey(), 0).tx;
    assert.ok(!noFee.outs.some((out) => out.script.length === 0), 'the transaction has no fee output');
    const error = await rpc.error('sendrawtransaction', noFee.toHex());
    assert.equal(error.code, -26);
    assert.match(error.message, /^min relay fee not met, 0 < \d+$/);
  });

  test('the relay floor is Liquid\'s 0.1 sat per discounted vbyte, rounded up as elementsd rounds it', async () => {
    const sizeOf = async (tx: Transaction) => (await rpc.call<{ discountvsize: number }>('decoderawtransaction', tx.toHex())).discountvsize;
    const vsize = await sizeOf(spendCoinbase(newKey()).tx);
    assert.ok(vsize % 10 !== 0, `a size (${vsize} vB) whose floor has a fraction of a satoshi`);
    const floor = Math.ceil(vsize / 10);
    const short = spendCoinbase(newKey(), floor - 1).tx;
    assert.equal(await sizeOf(short), vsize, 'the explicit fee\'s value leaves the size alone');
    const error = await rpc.error('sendrawtransaction', short.toHex());
    assert.deepEqual([error.code, error.message], [-26, `min relay fee not met, ${floor - 1} < ${floor}`]);
    const [paid] = await rpc.call<{ allowed: boolean; vsize: number; fees: { base: number } }[]>('testmempoolaccept', [
      spendCoinbase(newKey(), floor).tx.toHex(),
    ]);
    assert.deepEqual([paid.allowed, paid.vsize, paid.fees.base], [true, vsize, floor / 1e8]);
  });

  test('refuses a transaction not final at the next block', async () => {
    const height = await rpc.call<number>('getblockcount');
    const tx = Transaction.fromHex(spendCoinbase(newKey()).tx.toHex());
    // Finality is checked before any signature, as elementsd's PreChecks do.
    tx.locktime = height + 2;
    const error = await rpc.error('sendrawtransaction', tx.toHex());
    assert.deepEqual([error.code, error.message], [-26, 'non-final']);
    tx.locktime = height;
    const [final] = await rpc.call<{ 'reject-reason'?: string }[]>('testmempoolaccept', [tx.toHex()]);
    assert.notEqual(final['reject-reason'], 'non-final');
  });

  test('refuses a forged range proof', async () => {
    const tx = Transaction.fromHex(spendCoinbase(newKey()).tx.toHex());
    const proof = Buffer.from(tx.outs[0].rangeProof!);
    proof[Math.floor(proof.length / 2)] ^= 0x01;
    tx.outs[0].rangeProof = proof;
    const error = await rpc.error('sendrawtransaction', tx.toHex());
    assert.equal(error.code, -26);
    assert.match(error.message, /^bad-txns-in-ne-out, value in != value out/);
  });

  test('accepts and mines a confidential spend of the matured coinbase; refuses double spends and missing inputs', async () => {
    const owner = newKey();
    const funding = spendCoinbase(owner);
    const txid = await rpc.call<string>('sendrawtransaction', funding.tx.toHex());
    assert.equal(txid, funding.tx.getId());
    assert.deepEqual(await rpc.call('getrawmempool'), [txid]);

    const conflict = await rpc.error('sendrawtransaction', spendCoinbase(newKey()).tx.toHex());
    assert.deepEqual([conflict.code, conflict.message], [-26, 'txn-mempool-conflict']);
    const missing = await rpc.error('sendrawtransaction', fund(newKey(), [{ script: p2wpkh(owner), amount: 10_000 }]).tx.toHex());
    assert.deepEqual([missing.code, missing.message], [-25, 'bad-txns-inputs-missingorspent']);

    const [hash] = await rpc.call<string[]>('generatetoaddress', 1, addressOf(newKey()));
    assert.deepEqual(await rpc.call('getrawmempool'), []);
    const block = await rpc.call<{ tx: { txid: string; vout: Record<string, unknown>[]; fee?: Record<string, number> }[] }>('getblock', hash, 2);
    assert.deepEqual(
      block.tx.map((t) => t.txid),
      [block.tx[0].txid, txid],
    );
    assert.equal(block.tx[0].vout[0].value, 50 + FEE / 1e8, 'the coinbase claims the fee');
    const [blinded, feeOut] = block.tx[1].vout;
    assert.equal(blinded.value, undefined);
    assert.match(blinded.valuecommitment as string, /^0[89][0-9a-f]{64}$/);
    assert.match(blinded.assetcommitment as string, /^0[ab][0-9a-f]{64}$/);
    assert.deepEqual([feeOut.value, feeOut.asset, (feeOut.scriptPubKey as { type: string }).type], [FEE / 1e8, REGTEST_POLICY_ASSET, 'fee']);
    assert.deepEqual(block.tx[1].fee, { [REGTEST_POLICY_ASSET]: FEE / 1e8 });

    const out = await rpc.call<Record<string, unknown>>('gettxout', txid, 0);
    assert.equal(out.confirmations, 1);
    assert.equal(out.valuecommitment, blinded.valuecommitment);
    assert.equal(out.assetcommitment, blinded.assetcommitment);
    assert.equal(await rpc.call('gettxout', txid, 1), null, 'fee outputs are not coins');
    const verbose = await rpc.call<{ blockhash: string; confirmations: number }>('getrawtransaction', txid, true);
    assert.deepEqual([verbose.blockhash, verbose.confirmations], [hash, 1]);
    assert.equal(await rpc.call('getrawtransaction', txid), funding.tx.toHex());
    const raw = await rpc.call<string>('getblock', hash, 0);
    assert.ok(raw.endsWith(funding.tx.toHex()), 'the serialized block ends with the spend');
    assert.equal(raw.slice(0, 8), '00000020', 'version 0x20000000, then prev, merkle root, time, height and the OP_TRUE proof');

    const spent = await rpc.error('sendrawtransaction', spendCoinbase(newKey()).tx.toHex());
    assert.deepEqual([spent.code, spent.message], [-25, 'bad-txns-inputs-missingorspent']);

    // The new blinded coin is spendable in turn.
    const next = spendP2wpkh(funding, 0, owner);
    assert.equal(await rpc.call('sendrawtransaction', next.toHex()), next.getId());
    await rpc.call('generatetoaddress', 1, addressOf(newKey()));
  });

  test('invalidateblock returns the block’s transactions to the mempool', async () => {
    const height = await rpc.call<number>('getblockcount');
    const hash = await rpc.call<string>('getblockhash', height);
    const block = await rpc.call<{ tx: string[] }>('getblock', hash, 1);
    assert.equal(block.tx.length, 2);
    assert.equal(await rpc.call('invalidateblock', hash), null);
    assert.equal(await rpc.call('getblockcount'), height - 1);
    assert.deepEqual(await rpc.call('getrawmempool'), [block.tx[1]]);
    assert.equal(await rpc.call('gettxout', block.tx[1], 0, false), null);
    const [again] = await rpc.call<string[]>('generatetoaddress', 1, addressOf(newKey()));
    assert.notEqual(again, hash);
    assert.deepEqual((await rpc.call<{ tx: string[] }>('getblock', again, 1)).tx.slice(1), [block.tx[1]]);
  });

  test('mines by fee rate and the coinbase claims the fees', async () => {
    const coinbaseOf = async (height: number): Promise<string> =>
      (await rpc.call<{ tx: string[] }>('getblock', await rpc.call('getblockhash', height), 1)).tx[0];
    // Blocks 2 and 3 were mined to the miner's confidential address; their coinbases are explicit and mature.
    const spend = async (height: number, fee: number): Promise<string> => {
      const tx = fund(miner, [{ script: p2wpkh(newKey()), amount: SUBSIDY - fee }], { coin: { txid: await coinbaseOf(height), vout: 0 }, fee }).tx;
      return rpc.call<string>('sendrawtransaction', tx.toHex());
    };
    const [tooDear] = await rpc.call<{ 'reject-reason': string }[]>('testmempoolaccept', [
      fund(miner, [{ script: p2wpkh(newKey()), amount: SUBSIDY - 100_000_000 }], { coin: { txid: await coinbaseOf(2), vout: 0 }, fee: 100_000_000 }).tx.toHex(),
    ]);
    assert.equal(tooDear['reject-reason'], 'max-fee-exceeded', 'above the default maxfeerate of 0.10 BTC/kvB');
    const cheap = await spend(2, FEE);
    const dear = await spend(3, 5 * FEE);
    const [hash] = await rpc.call<string[]>('generatetoaddress', 1, addressOf(newKey()));
    const block = await rpc.call<{ tx: { txid: string; vout: { value?: number }[] }[] }>('getblock', hash, 2);
    assert.deepEqual(block.tx.slice(1).map((t) => t.txid), [dear, cheap], 'the higher fee rate first, though it arrived second');
    assert.equal(block.tx[0].vout[0].value, (SUBSIDY + 6 * FEE) / 1e8);
  });

  test('reopens from its store at the same tip, with its mempool', async () => {
    // Block 4's coinbase, mined to the miner's confidential address, is explicit and the miner's.
    const coinbase = (await rpc.call<{ tx: string[] }>('getblock', await rpc.call('getblockhash', 4), 1)).tx[0];
    const pending = fund(miner, [{ script: p2wpkh(newKey()), amount: SUBSIDY - FEE }], { coin: { txid: coinbase, vout: 0 } }).tx;
    await rpc.call('sendrawtransaction', pending.toHex());
    const tip = await rpc.call<string>('getbestblockhash');
    const count = await rpc.call<number>('getblockcount');
    const mempool = await rpc.call<string[]>('getrawmempool');
    await devnet.close();
    devnet = await startElementsDevnet({ dataDir, port: 0, fund: false });
    rpc = new Rpc(devnet);
    assert.equal(await rpc.call('getbestblockhash'), tip);
    assert.equal(await rpc.call('getblockcount'), count);
    assert.deepEqual(mempool, [pending.getId()]);
    assert.deepEqual(await rpc.call('getrawmempool'), mempool);
    const [mined] = await rpc.call<string[]>('generatetoaddress', 1, addressOf(newKey()));
    assert.deepEqual((await rpc.call<{ tx: string[] }>('getblock', mined, 1)).tx.slice(1), mempool);
    const fee = await rpc.call<{ feerate: number; blocks: number }>('estimatesmartfee', 6);
    assert.deepEqual(fee, { feerate: 0.000001, blocks: 6 }, 'the relay floor, 0.1 sat/vB, in BTC/kvB');
  });
});
