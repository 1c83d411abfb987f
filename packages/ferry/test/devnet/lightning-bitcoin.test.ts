// The Lightning devnet on the Bitcoin devnet: channels funded by real transactions, HTLC expiry by real blocks.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { startBitcoinDevnet, type BitcoinDevnet } from '@ferry/devnet/bitcoin/index.js';
import { BitcoinRpcChain, startLightningDevnet, type LightningDevnet } from '@ferry/devnet/lightning/index.js';
import { CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';
import { LndRestClient } from '../../src/lightning/index.ts';
import { freshDir, waitUntil } from '../lightning/helpers.ts';

describe('lightning devnet on the bitcoin devnet', () => {
  let bitcoin: BitcoinDevnet;
  let lightning: LightningDevnet;
  let rpc: CoreRpcClient;
  let chain: BitcoinRpcChain;

  before(async () => {
    const dataDir = freshDir();
    bitcoin = await startBitcoinDevnet({ dataDir, port: 0, fund: true });
    rpc = new CoreRpcClient({ url: bitcoin.rpcUrl, user: bitcoin.rpcUser, password: bitcoin.rpcPassword });
    chain = new BitcoinRpcChain({
      url: bitcoin.rpcUrl,
      user: bitcoin.rpcUser,
      password: bitcoin.rpcPassword,
      wallet: bitcoin.wallets.operator,
      pollMs: 50,
    });
    lightning = await startLightningDevnet({ dataDir, chain });
  });

  after(async () => {
    await lightning?.close();
    await bitcoin?.close();
  });

  test('each channel is a confirmed 2-of-2 P2WSH output of its capacity', async () => {
    for (const channel of lightning.network.channels) {
      const [txid, vout] = channel.channelPoint.split(':');
      const out = await rpc.getTxOut(txid, Number(vout));
      assert.ok(out, `funding output ${channel.channelPoint} is unspent on chain`);
      const txOut = out as { value: number; scriptPubKey: { type: string }; confirmations: number };
      assert.equal(Math.round(txOut.value * 1e8), channel.capacitySat);
      assert.equal(txOut.scriptPubKey.type, 'witness_v0_scripthash');
      assert.ok(txOut.confirmations >= 1);
      assert.equal(Number(BigInt(channel.chanId) >> 40n), channel.openHeight);
    }
  });

  test('a held payment fails back once blocks pass its HTLC expiry height', async () => {
    const ferry = new LndRestClient({ url: lightning.nodes.ferry.restUrl, macaroon: lightning.nodes.ferry.macaroon });
    const alice = new LndRestClient({ url: lightning.nodes.alice.restUrl, macaroon: lightning.nodes.alice.macaroon });
    assert.equal((await ferry.getInfo()).blockHeight, await rpc.getBlockCount());
    const hash = createHash('sha256').update(randomBytes(32)).digest('hex');
    const { paymentRequest } = await ferry.createHoldInvoice({ paymentHash: hash, amountMsat: 5_000_000n, cltvExpiry: 10 });
    const paying = alice.payInvoice({ paymentRequest, feeLimitMsat: 1_000n, timeoutSeconds: 10 });
    await waitUntil(async () => (await ferry.lookupInvoice(hash))?.state === 'ACCEPTED');
    const [expiry] = (await ferry.lookupInvoice(hash))!.htlcExpiryHeights;
    const burn = await rpc.wallet(bitcoin.wallets.user).getNewAddress();
    await rpc.generateToAddress(expiry - (await rpc.getBlockCount()) - 1, burn);
    await chain.poll();
    assert.equal((await ferry.lookupInvoice(hash))?.state, 'ACCEPTED');
    await rpc.generateToAddress(1, burn);
    const result = await paying;
    assert.equal(result.status, 'FAILED');
    assert.equal((await ferry.lookupInvoice(hash))?.state, 'CANCELED');
  });
});
