// Legacy (API v1) swap outputs of Ferry's Bitcoin backend on the devnet's node: a submarine lockup as P2SH-nested
// P2WSH and a reverse lockup as P2WSH, both boltz-core redeem scripts, locked for real and spent by Ferry through
// the script alone — a claim with the preimage, a refund that the node refuses before the timeout and takes after.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { OutScript, p2sh, p2wsh, Script } from '@scure/btc-signer';
import { reverseSwapScript, swapScript } from 'boltz-core';
import { BitcoinBackend } from '../../src/chains/bitcoin/backend.ts';
import { bitcoinCodec } from '../../src/chains/bitcoin/codec.ts';
import { NETWORKS } from '../../src/chains/bitcoin/network.ts';
import { CoreRpcClient, RpcError, satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { silentLogger } from '../../src/chains/logger.ts';
import { ChainWatcher } from '../../src/chains/watcher/watcher.ts';
import { openStorage, type Storage } from '../../src/db/index.ts';
import { startBitcoinDevnet, type BitcoinDevnet } from '@ferry/devnet/bitcoin/index.js';

let dataDir: string;
let devnet: BitcoinDevnet;
let storage: Storage;
let node: CoreRpcClient;
let user: CoreRpcClient;
let backend: BitcoinBackend;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ferry-legacy-'));
  devnet = await startBitcoinDevnet({ dataDir, port: 0 });
  node = new CoreRpcClient({ url: devnet.rpcUrl, user: devnet.rpcUser, password: devnet.rpcPassword });
  user = node.wallet(devnet.wallets.user);
  storage = await openStorage(join(dataDir, 'ferry.sqlite'));
  const operator = node.wallet(devnet.wallets.operator);
  const watcher = new ChainWatcher({ chain: 'BTC', rpc: operator, codec: bitcoinCodec, checkpoints: storage.checkpoints, logger: silentLogger });
  backend = new BitcoinBackend({ network: 'regtest', rpc: operator, watcher, feeEstimator: async () => 2 });
});

after(async () => {
  await storage.close();
  await devnet.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const keyPair = () => {
  const privateKey = secp256k1.utils.randomSecretKey();
  return { privateKey, publicKey: secp256k1.getPublicKey(privateKey, true) };
};
const mine = async (blocks = 1) => node.generateToAddress(blocks, await user.getNewAddress());

/** The output of a transaction, decoded by the node. */
async function spentBy(txHex: string) {
  const decoded = await node.decodeRawTransaction(txHex);
  return { decoded, input: decoded.vin[0] as unknown as { txid: string; vout: number; txinwitness: string[]; scriptSig: { hex: string } } };
}

test('a submarine lockup is P2SH-P2WSH of swapScript, and Ferry claims it with <signature> <preimage> <redeem script>', async () => {
  const ferry = keyPair();
  const client = keyPair();
  const preimage = randomBytes(32);
  const timeoutBlockHeight = (await node.getBlockCount()) + 20;
  const terms = {
    kind: 'submarine' as const,
    outputKind: 'legacy' as const,
    preimageHash: sha256(preimage),
    claimPublicKey: ferry.publicKey,
    refundPublicKey: client.publicKey,
    timeoutBlockHeight,
    servicePublicKey: ferry.publicKey,
  };
  const output = backend.swapOutput(terms);
  const redeemScript = swapScript(terms.preimageHash, ferry.publicKey, client.publicKey, timeoutBlockHeight);
  assert.equal(output.tree, undefined);
  assert.deepEqual(output.legacy, { outputType: 'p2sh-p2wsh', redeemScript: hex.encode(redeemScript) });
  const nested = p2sh(p2wsh({ type: 'wsh', script: redeemScript } as never), NETWORKS.regtest);
  assert.equal(output.address, nested.address);
  assert.equal(output.script, hex.encode(nested.script));
  assert.match(output.address, /^2/);

  const txid = await user.sendToAddress(output.address, satToBtc(100_000));
  await mine();
  const funding = await node.getRawTransaction(txid);
  const vout = funding.vout.findIndex((out) => out.scriptPubKey.hex === output.script);
  const lockup = { txid, vout, value: 100_000, script: output.script };
  const signer = { servicePrivateKey: ferry.privateKey, servicePublicKey: ferry.publicKey, clientPublicKey: client.publicKey, legacy: output.legacy };

  const claim = await backend.scriptPathClaim(lockup, signer, preimage);
  assert.equal(await node.sendRawTransaction(claim.hex), claim.txid);
  const { decoded, input } = await spentBy(claim.hex);
  assert.deepEqual([input.txid, input.vout], [txid, vout]);
  assert.equal(input.txinwitness.length, 3);
  assert.equal(input.txinwitness[1], hex.encode(preimage));
  assert.equal(input.txinwitness[2], hex.encode(redeemScript));
  assert.equal(input.scriptSig.hex, hex.encode(Script.encode([Script.encode(['OP_0', sha256(redeemScript)])])));
  const paid = decoded.vout[0] as unknown as { value: number; scriptPubKey: { address: string } };
  assert.ok(paid.value * 1e8 > 99_000 && paid.value * 1e8 < 100_000, `claimed ${paid.value}`);
  // The claim goes to the operator's wallet.
  await mine();
  const operatorCoins = await node.wallet(devnet.wallets.operator).listUnspent(1);
  assert.ok(operatorCoins.some((coin) => coin.txid === claim.txid));
});

test('a reverse lockup is P2WSH of reverseSwapScript; Ferry locks it and refunds it only from the timeout on', async () => {
  const ferry = keyPair();
  const client = keyPair();
  const preimage = randomBytes(32);
  const timeoutBlockHeight = (await node.getBlockCount()) + 5;
  const terms = {
    kind: 'reverse' as const,
    outputKind: 'legacy' as const,
    preimageHash: sha256(preimage),
    claimPublicKey: client.publicKey,
    refundPublicKey: ferry.publicKey,
    timeoutBlockHeight,
    servicePublicKey: ferry.publicKey,
  };
  const output = backend.swapOutput(terms);
  const redeemScript = reverseSwapScript(terms.preimageHash, client.publicKey, ferry.publicKey, timeoutBlockHeight);
  assert.deepEqual(output.legacy, { outputType: 'p2wsh', redeemScript: hex.encode(redeemScript) });
  assert.equal(output.script, hex.encode(OutScript.encode({ type: 'wsh', hash: sha256(redeemScript) })));
  assert.match(output.address, /^bcrt1q/);

  const lockup = await backend.sendToLockup(output, 50_000);
  await mine();
  const signer = { servicePrivateKey: ferry.privateKey, servicePublicKey: ferry.publicKey, clientPublicKey: client.publicKey, legacy: output.legacy };
  const early = await backend.scriptPathRefund(lockup, signer, timeoutBlockHeight);
  await assert.rejects(node.sendRawTransaction(early.hex), (error: unknown) => error instanceof RpcError && error.code === -26 && /non-final/.test(error.message));

  await mine(timeoutBlockHeight - (await node.getBlockCount()));
  const refund = await backend.scriptPathRefund(lockup, signer, timeoutBlockHeight);
  assert.equal(await node.sendRawTransaction(refund.hex), refund.txid);
  const { decoded, input } = await spentBy(refund.hex);
  assert.deepEqual([input.txid, input.vout], [lockup.txid, lockup.vout]);
  assert.equal(decoded.locktime, timeoutBlockHeight);
  assert.deepEqual(input.txinwitness.slice(1), ['', hex.encode(redeemScript)]);
});

test('a legacy output has no key path: asking for MuSig2 is refused', () => {
  const ferry = keyPair();
  const signer = { servicePrivateKey: ferry.privateKey, servicePublicKey: ferry.publicKey, clientPublicKey: keyPair().publicKey, legacy: { outputType: 'p2wsh' as const, redeemScript: '00' } };
  assert.throws(() => backend.musig(signer), /no key path/);
});
