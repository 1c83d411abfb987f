// A second asset on the Elements devnet over real JSON-RPC (port 0): the operator's issueasset, the new asset in
// listunspent, getbalances and getbalance, sent blinded with sendtoaddress's assetlabel (fee in L-BTC) to the user,
// who unblinds it; a forged issuance refused by the node's verifier with elementsd's reason while the honest one
// enters; the asset paid to a swap lockup's confidential P2TR address, as Ferry's wrong-asset test pays one; restart.
// Every assert.ok carries a message: without one, node rebuilds it by parsing tsx's one-line output, which hangs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { confidential, issuance, Transaction, type Secp256k1Interface } from 'liquidjs-lib';
import { startElementsDevnet, type ElementsDevnet } from '@ferry/devnet/elements/index.js';
import { REGTEST_POLICY_ASSET } from '@ferry/devnet/elements/verify/index.js';
import { loadZkp } from '@ferry/sdk/chains/liquid/zkp.js';
import { confidentialAddress } from '@ferry/devnet/elements/wallet/address.js';
import { Rpc } from '../helpers/devnet-rpc.ts';
import { issueFrom, type IssuanceCoin } from '../helpers/issuance.ts';
import { newKey, newLockup, p2wpkh, setup } from '../helpers/liquid.ts';

interface Issued {
  txid: string;
  vin: number;
  entropy: string;
  asset: string;
  token: string;
}

interface Unspent {
  txid: string;
  vout: number;
  amount: number;
  asset: string;
  amountcommitment?: string;
  assetcommitment?: string;
  confirmations: number;
}

interface RawTx {
  vin: { issuance?: Record<string, unknown> }[];
  vout: { n: number; value?: number; asset?: string; valuecommitment?: string; assetcommitment?: string; scriptPubKey: { hex: string } }[];
}

type Balances = { mine: { trusted: Record<string, number>; untrusted_pending: Record<string, number> } };

let dataDir: string;
let devnet: ElementsDevnet;
let rpc: Rpc;
let operator: Rpc;
let user: Rpc;
let burn: string;
let issued: Issued;

const display = (bytes: Buffer): string => Buffer.from(bytes).reverse().toString('hex');

async function open(): Promise<void> {
  devnet = await startElementsDevnet({ dataDir, port: 0 });
  rpc = new Rpc(devnet);
  operator = rpc.for(devnet.wallets.operator);
  user = rpc.for(devnet.wallets.user);
}

before(async () => {
  await setup();
  dataDir = mkdtempSync(join(tmpdir(), 'ferry-elements-issuance-'));
  await open();
  await rpc.call('createwallet', 'miner');
  burn = await rpc.for('miner').call<string>('getnewaddress');
});

after(async () => {
  await devnet.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The transaction (from the node) and the index of its output paying `script`. */
async function outputTo(txid: string, script: Buffer): Promise<{ vout: number; tx: Transaction }> {
  const tx = Transaction.fromHex(await rpc.call<string>('getrawtransaction', txid));
  return { vout: tx.outs.findIndex((o) => o.script.equals(script)), tx };
}

describe('Elements devnet: asset issuance', () => {
  test('issueasset issues a new asset and its reissuance tokens to the wallet, with elementsd\'s ids', async () => {
    issued = await operator.call<Issued>('issueasset', 1000, 1);
    assert.deepEqual(Object.keys(issued), ['txid', 'vin', 'entropy', 'asset', 'token']);
    assert.equal(issued.vin, 0);
    assert.ok((await rpc.call<string[]>('getrawmempool')).includes(issued.txid), 'in the mempool');
    const raw = await rpc.call<string>('getrawtransaction', issued.txid);
    const input = Transaction.fromHex(raw).ins[0];
    const entropy = issuance.generateEntropy({ txHash: input.hash, vout: input.index }, Buffer.alloc(32));
    assert.equal(issued.entropy, display(entropy));
    assert.equal(issued.asset, display(issuance.calculateAsset(entropy)));
    // blind defaults to true: the amounts are commitments, so the token id is that of a blinded issuance.
    assert.equal(issued.token, display(issuance.calculateReissuanceToken(entropy, true)));
    const json = (await rpc.call<RawTx>('getrawtransaction', issued.txid, true)).vin[0].issuance!;
    assert.deepEqual([json.asset, json.token, json.assetEntropy, json.isreissuance], [issued.asset, issued.token, issued.entropy, false]);
    assert.match(String(json.assetamountcommitment), /^0[89]/);

    const coins = await operator.call<Unspent[]>('listunspent', 0);
    const mine = coins.filter((c) => c.txid === issued.txid && c.asset !== REGTEST_POLICY_ASSET).map((c) => [c.asset, c.amount]);
    assert.deepEqual(mine.sort(), [[issued.asset, 1000], [issued.token, 1]].sort());
    assert.ok(coins.every((c) => c.txid !== issued.txid || c.amountcommitment !== undefined), 'its outputs are blinded');
    const { trusted } = (await operator.call<Balances>('getbalances')).mine;
    assert.deepEqual([trusted[issued.asset], trusted[issued.token]], [1000, 1]);
    assert.ok(trusted.bitcoin > 49.999 && trusted.bitcoin < 50, `L-BTC paid the fee (${trusted.bitcoin})`);
    assert.equal(await operator.call('getbalance', '*', 0, false, false, issued.asset), 1000);
    assert.equal(await operator.call('getbalance', '*', 0, false, false, 'bitcoin'), trusted.bitcoin);
    assert.equal(await operator.call('getbalance', '*', 0, false, false, 'nolabel'), 0, 'an unknown label has nothing');
    await rpc.call('generatetoaddress', 1, burn);
  });

  test('issueasset: blind=false, a contract hash, tokens only; elementsd\'s errors', async () => {
    const contract = 'ab'.repeat(32);
    const explicit = await operator.call<Issued>('issueasset', 5, 0, false, contract);
    const input = Transaction.fromHex(await rpc.call<string>('getrawtransaction', explicit.txid)).ins[0];
    const entropy = issuance.generateEntropy({ txHash: input.hash, vout: input.index }, Buffer.from(contract, 'hex').reverse());
    assert.equal(explicit.asset, display(issuance.calculateAsset(entropy)));
    const json = (await rpc.call<RawTx>('getrawtransaction', explicit.txid, true)).vin[0].issuance!;
    assert.deepEqual([json.assetamount, json.tokenamount], [5, undefined], 'explicit amount, no tokens');
    const tokens = await operator.call<Issued>('issueasset', 0, 2);
    assert.equal((await operator.call<number>('getbalance', '*', 0, false, false, tokens.token)), 2);
    assert.deepEqual(await operator.error('issueasset', 0, 0), { code: -3, message: 'Issuance must have one non-zero component' });
    assert.equal((await operator.error('issueasset', -1, 0)).code, -3);
    assert.equal((await rpc.for('miner').error('issueasset', 1, 0)).message, 'Insufficient funds', 'no L-BTC for the fee');
    await rpc.call('generatetoaddress', 1, burn);
  });

  test('sendtoaddress with assetlabel pays the asset blinded, the fee and L-BTC change apart; the user unblinds it', async () => {
    const address = await user.call<string>('getnewaddress');
    const txid = await operator.call<string>('sendtoaddress', address, 250, '', '', false, null, null, null, null, issued.asset);
    const tx = await rpc.call<RawTx>('getrawtransaction', txid, true);
    const script = (await user.call<{ scriptPubKey: string }>('getaddressinfo', address)).scriptPubKey;
    const paid = tx.vout.find((o) => o.scriptPubKey.hex === script)!;
    assert.ok(paid.valuecommitment && paid.assetcommitment, 'amount and asset are blinded');
    const fee = tx.vout.find((o) => o.scriptPubKey.hex === '')!;
    assert.equal(fee.asset, REGTEST_POLICY_ASSET, 'the fee is L-BTC');

    const [coin] = await user.call<Unspent[]>('listunspent', 0, 0, [address]);
    assert.deepEqual([coin.asset, coin.amount], [issued.asset, 250]);
    assert.deepEqual((await user.call<Balances>('getbalances')).mine.untrusted_pending, { bitcoin: 0, [issued.asset]: 250 });
    const { hex } = await user.call<{ hex: string }>('unblindrawtransaction', await rpc.call<string>('getrawtransaction', txid));
    const opened = (await rpc.call<RawTx>('decoderawtransaction', hex)).vout.find((o) => o.scriptPubKey.hex === script)!;
    assert.deepEqual([opened.asset, opened.value], [issued.asset, 250]);
    assert.equal((await operator.call<Balances>('getbalances')).mine.trusted[issued.asset], 750, 'the operator\'s asset change');
    const sent = await operator.call<{ amount: Record<string, number>; fee: Record<string, number> }>('gettransaction', txid);
    assert.deepEqual(sent.amount, { bitcoin: 0, [issued.asset]: -250 }, 'gettransaction: the asset sent, L-BTC only for the fee');
    assert.deepEqual(sent.fee, { bitcoin: -fee.value! });
    assert.deepEqual((await user.call<{ amount: unknown }>('gettransaction', txid)).amount, { bitcoin: 0, [issued.asset]: 250 });
    await rpc.call('generatetoaddress', 1, burn);
    assert.equal(await user.call('getbalance', '*', 1, false, false, issued.asset), 250);
  });

  test('sendtoaddress with an asset: elementsd\'s errors', async () => {
    const address = await user.call<string>('getnewaddress');
    const send = (...rest: unknown[]) => operator.error('sendtoaddress', address, ...rest);
    assert.deepEqual(await send(1, '', '', false, null, null, null, null, 'nonsense'), {
      code: -4, message: `Unknown label and invalid asset hex: ${'0'.repeat(64)}`,
    });
    assert.deepEqual(await send(1000, '', '', false, null, null, null, null, issued.asset), { code: -6, message: 'Insufficient funds' });
    const subtract = await send(1, '', '', true, null, null, null, null, issued.asset);
    assert.equal(subtract.code, -6);
    assert.match(subtract.message, /^Wallet does not support more than one type of fee at a time/);
    const byLabel = await operator.call<string>('sendtoaddress', address, 1, '', '', false, null, null, null, null, 'bitcoin');
    assert.match(byLabel, /^[0-9a-f]{64}$/, 'L-BTC by its label');
  });

  test('the node\'s verifier refuses a forged issuance (more paid out than issued) and accepts the honest one', async () => {
    const owner = newKey();
    const blinding = newKey();
    const txid = await operator.call<string>('sendtoaddress', confidentialAddress(p2wpkh(owner), blinding.publicKey), 1);
    await rpc.call('generatetoaddress', 1, burn);
    const { vout, tx } = await outputTo(txid, p2wpkh(owner));
    const coin: IssuanceCoin = { txid, vout, output: tx.outs[vout], value: 100_000_000, owner, blindingKey: blinding.privateKey };

    for (const blinded of [false, true]) {
      const forged = await issueFrom(coin, { assetAmount: 1_000, tokenAmount: 1, blinded, forgeIssued: 400, fee: 5_000 });
      const error = await rpc.error('sendrawtransaction', forged.tx.toHex());
      assert.equal(error.code, -26);
      assert.match(error.message, /^bad-txns-in-ne-out, value in != value out \(devnet: the value commitments do not balance\)$/);
      const [tested] = await rpc.call<{ allowed: boolean; 'reject-reason': string }[]>('testmempoolaccept', [forged.tx.toHex()]);
      assert.deepEqual([tested.allowed, tested['reject-reason']], [false, 'bad-txns-in-ne-out']);
    }
    const honest = await issueFrom(coin, { assetAmount: 1_000, tokenAmount: 1, blinded: true, fee: 5_000 });
    assert.equal(await rpc.call('sendrawtransaction', honest.tx.toHex()), honest.tx.getId());
    const json = (await rpc.call<RawTx>('getrawtransaction', honest.tx.getId(), true)).vin[0].issuance!;
    assert.deepEqual([json.asset, json.token], [honest.asset, honest.token]);
    await rpc.call('generatetoaddress', 1, burn);
  });

  test('the asset paid to a swap lockup\'s confidential P2TR address is accepted and opens with its blinding key', async () => {
    const lockup = newLockup('submarine');
    const blinding = newKey();
    const address = confidentialAddress(lockup.script, blinding.publicKey);
    const txid = await operator.call<string>('sendtoaddress', address, 10, '', '', false, null, null, null, null, issued.asset);
    await rpc.call('generatetoaddress', 1, burn);
    const { vout, tx } = await outputTo(txid, lockup.script);
    assert.ok(vout >= 0, 'an output pays the lockup script');
    const lookup = await rpc.call<{ confirmations: number } | null>('gettxout', txid, vout);
    assert.equal(lookup?.confirmations, 1, 'confirmed and unspent');
    const zkp = (await loadZkp()) as unknown as Secp256k1Interface;
    const opened = new confidential.Confidential(zkp).unblindOutputWithKey(tx.outs[vout], blinding.privateKey);
    assert.deepEqual([display(opened.asset), opened.value], [issued.asset, '1000000000'], 'not L-BTC: 10 of the new asset');
  });

  test('reopening the devnet: the wallets still hold the asset', async () => {
    const before = (await operator.call<Balances>('getbalances')).mine.trusted;
    assert.ok(before[issued.asset] > 0, 'the operator holds some');
    await devnet.close();
    await open();
    assert.deepEqual((await operator.call<Balances>('getbalances')).mine.trusted, before);
    assert.equal(await user.call('getbalance', '*', 1, false, false, issued.asset), 250);
  });
});
