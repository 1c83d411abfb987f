// Swap HTLCs built by boltz-core (test/helpers/htlc.ts), funded by the devnet's user wallet and spent
// through sendrawtransaction: the node accepts exactly the spends Bitcoin Core would.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreRpcClient, RpcError } from '@ferry/sdk/chains/core-rpc.js';
import { startBitcoinDevnet, type BitcoinDevnet } from '@ferry/devnet/bitcoin/index.js';
import {
  buildClaim,
  buildKeyPathSpend,
  buildRefund,
  findLockupOutput,
  makeHtlc,
  randomPreimage,
  type FundingOutput,
  type Htlc,
  type HtlcKind,
  type TaprootHtlc,
} from '../helpers/htlc.ts';

let dataDir: string;
let devnet: BitcoinDevnet;
let rpc: CoreRpcClient;
let user: CoreRpcClient;
let minerAddress: string;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ferry-htlc-'));
  devnet = await startBitcoinDevnet({ dataDir, port: 0 });
  rpc = new CoreRpcClient({ url: devnet.rpcUrl, user: devnet.rpcUser, password: devnet.rpcPassword });
  user = rpc.wallet(devnet.wallets.user);
  minerAddress = await rpc.wallet(devnet.wallets.operator).getNewAddress();
});

after(async () => {
  await devnet.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function rejects(hex: string, code: number, message: string | RegExp): Promise<void> {
  await assert.rejects(rpc.sendRawTransaction(hex), (error: unknown) => {
    assert.ok(error instanceof RpcError, String(error));
    assert.equal(error.code, code, error.message);
    if (typeof message === 'string') assert.equal(error.message, message);
    else assert.match(error.message, message);
    return true;
  });
}

/** Locks 100,000 sat in the HTLC from the user wallet and confirms it. */
async function fund(htlc: Htlc): Promise<FundingOutput> {
  const txid = await user.sendToAddress(htlc.address, 0.001);
  await rpc.generateToAddress(1, minerAddress);
  const funding = findLockupOutput(await rpc.getRawTransactionHex(txid), htlc);
  assert.ok(funding, 'lockup output found');
  assert.equal(funding.value, 100_000n);
  return funding;
}

async function mineTo(height: number): Promise<void> {
  const tip = await rpc.getBlockCount();
  if (height > tip) await rpc.generateToAddress(height - tip, minerAddress);
}

const mandatoryFailure = /^mandatory-script-verify-flag-failed \(.+\)$/;
const kinds: HtlcKind[] = ['p2wsh', 'p2sh-p2wsh', 'p2sh', 'taproot'];

for (const kind of kinds) {
  describe(`${kind} HTLC`, () => {
    test('claim: wrong preimage and forged signature rejected, overspend rejected, the real claim accepted once', async () => {
      const htlc = makeHtlc({ kind, timeoutBlockHeight: (await rpc.getBlockCount()) + 50 });
      const funding = await fund(htlc);

      await rejects(buildClaim(htlc, funding, { preimage: randomPreimage().preimage }).hex, -26, mandatoryFailure);
      await rejects(buildClaim(htlc, funding, { tamperSignature: true }).hex, -26, mandatoryFailure);
      await rejects(
        buildClaim(htlc, funding, { outputAmount: 100_500n }).hex,
        -26,
        'bad-txns-in-belowout, value in (0.001) < value out (0.001005)',
      );

      const claim = buildClaim(htlc, funding);
      assert.equal(await rpc.sendRawTransaction(claim.hex), claim.txid);
      // The preimage is on chain for the watcher: the claim's witness (or scriptSig) reveals it.
      const decoded = await rpc.getRawTransaction(claim.txid);
      const revealed = [...(decoded.vin[0].txinwitness ?? []), decoded.vin[0].scriptSig?.asm ?? ''].join(' ');
      assert.ok(revealed.includes(Buffer.from(htlc.preimage).toString('hex')));

      const competing = buildClaim(htlc, funding, { fee: 2_000n });
      await rejects(competing.hex, -26, 'txn-mempool-conflict');
      await rpc.generateToAddress(1, minerAddress);
      assert.equal((await rpc.getRawTransaction(claim.txid)).confirmations, 1);
      await rejects(competing.hex, -25, 'bad-txns-inputs-missingorspent');
    });

    test('refund: non-final one block before the timeout, accepted at it; then a double spend fails', async () => {
      const timeout = (await rpc.getBlockCount()) + 4;
      const htlc = makeHtlc({ kind, timeoutBlockHeight: timeout });
      const funding = await fund(htlc);

      const refund = buildRefund(htlc, funding);
      assert.equal(refund.lockTime, timeout);
      await mineTo(timeout - 1);
      await rejects(refund.hex, -26, 'non-final');
      await rejects(buildRefund(htlc, funding, { tamperSignature: true }).hex, -26, 'non-final');

      await mineTo(timeout);
      await rejects(buildRefund(htlc, funding, { tamperSignature: true }).hex, -26, mandatoryFailure);
      assert.equal(await rpc.sendRawTransaction(refund.hex), refund.txid);
      await rejects(buildClaim(htlc, funding).hex, -26, 'txn-mempool-conflict');
      await rpc.generateToAddress(1, minerAddress);
      await rejects(buildClaim(htlc, funding).hex, -25, 'bad-txns-inputs-missingorspent');
    });
  });
}

describe('taproot HTLC key path', () => {
  test('a cooperative MuSig2 spend is accepted and mined', async () => {
    const htlc = makeHtlc({ kind: 'taproot', timeoutBlockHeight: (await rpc.getBlockCount()) + 50 }) as TaprootHtlc;
    const funding = await fund(htlc);
    await rejects(buildKeyPathSpend(htlc, funding, { outputAmount: 200_000n }).hex, -26, /^bad-txns-in-belowout/);
    const spend = buildKeyPathSpend(htlc, funding);
    const decoded = await rpc.decodeRawTransaction(spend.hex);
    assert.equal(decoded.vin[0].txinwitness?.length, 1, 'key path: a single Schnorr signature');
    assert.equal(await rpc.sendRawTransaction(spend.hex), spend.txid);
    const [hash] = await rpc.generateToAddress(1, minerAddress);
    assert.ok((await rpc.getBlock(hash)).tx.includes(spend.txid));
  });
});
