// Ferry's EVM chain against a real anvil (the devnet's, on an ephemeral port) with boltz-core's contracts: the
// connection checks (chain id, contract version), the operator account derived from the mnemonic, height, gas
// price and balance; the contract event follower seeing a user's lock, the claim with the preimage and the refund
// after the timelock, decoded; a reorg (evm_snapshot / evm_revert) taking a delivered lockup back; confirmations;
// and the checkpoint in SQLite carrying a follower across a restart.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Contract, JsonRpcProvider, Wallet, formatUnits, getAddress, parseEther, sha256, toQuantity, type ContractTransactionResponse } from 'ethers';
import { startEvmDevnet, ANVIL_MNEMONIC, type EvmDevnet } from '@ferry/devnet/evm/index.js';
import { artifact } from '@ferry/devnet/evm/contracts.js';
import { loadConfig } from '../../src/config/index.ts';
import { openStorage } from '../../src/db/index.ts';
import { MemoryCheckpointStore, type CheckpointStore } from '../../src/chains/checkpoint.ts';
import { connectEvm } from '../../src/chains/evm/connect.ts';
import { evmSettings, type EvmSettings } from '../../src/chains/evm/settings.ts';
import { evmConfigOf } from '@ferry/devnet/ferry-config.js';
import type { EvmBackend } from '../../src/chains/evm/backend.ts';
import { EvmFollower } from '../../src/chains/evm/follower.ts';
import type { EvmReorgEvent, EvmSwapEvent } from '../../src/chains/evm/events.ts';
import { silentLogger } from '../../src/log/index.ts';

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-evm-chain-'));
  dirs.push(dir);
  return dir;
};

let evm: EvmDevnet;
let settings: EvmSettings;
let provider: JsonRpcProvider;
let user: Wallet;
let operator: Wallet;
let backend: EvmBackend;

before(async () => {
  const dataDir = tempDir();
  evm = await startEvmDevnet({ dataDir, port: 0 });
  // Ferry configured with anvil's node and contracts, as `ferry devnet` writes them into ferry.toml
  const config = loadConfig({ env: { FERRY_DATA_DIR: dataDir } });
  settings = evmSettings({ ...config, evm: { ...config.evm, ...evmConfigOf(evm.info) } });
  // anvil's mnemonic as Ferry's: the operator account is then anvil's funded account 0.
  backend = await connectEvm(settings, { checkpoints: new MemoryCheckpointStore(), mnemonic: ANVIL_MNEMONIC, logger: silentLogger });
  provider = new JsonRpcProvider(evm.info.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
  user = new Wallet(evm.info.accounts.user.privateKey, provider);
  operator = new Wallet(evm.info.accounts.operator.privateKey, provider);
});

after(async () => {
  await backend?.close();
  provider?.destroy();
  await evm?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const etherSwap = (signer: Wallet) => new Contract(evm.info.contracts.etherSwap, artifact('etherSwap').abi, signer);
const mined = async (sent: Promise<ContractTransactionResponse>) => (await (await sent).wait())!;
const mine = (blocks = 1) => provider.send('anvil_mine', [toQuantity(blocks)]);

/** The user locks `amount` for the operator; the preimage and the lockup's values. */
async function userLock(amount = parseEther('0.0123456789'), blocks = 20) {
  const preimage = randomBytes(32);
  const timelock = (await provider.getBlockNumber()) + blocks;
  const receipt = await mined(etherSwap(user).getFunction('lock(bytes32,address,uint256)')(sha256(preimage), operator.address, timelock, { value: amount }));
  return { preimage, preimageHash: sha256(preimage), amount, timelock, receipt };
}

/** A follower on its own (a second follower beside the backend's), collecting what it delivers. */
function follower(checkpoints: CheckpointStore, options: { confirmations?: number; startHeight?: number } = {}) {
  const events: EvmSwapEvent[] = [];
  const reorgs: EvmReorgEvent[] = [];
  const instance = new EvmFollower({ chain: 'RBTC', provider, contracts: settings.contracts, checkpoints, logger: silentLogger, ...options });
  instance.subscribe({ event: (event) => void events.push(event), reorg: (reorg) => void reorgs.push(reorg) });
  return { instance, events, reorgs };
}

describe('EVM backend', () => {
  test('connects to the devnet anvil: chain 31337, version-6 contracts, the operator at m/44\'/60\'/0\'/0/0', async () => {
    assert.equal(backend.chainId, 31337);
    assert.equal(backend.version, 6);
    assert.equal(backend.signer.address, '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', "anvil's account 0 of the same mnemonic");
    assert.equal(await backend.height(), await provider.getBlockNumber());
    const gasPrice = BigInt(await provider.send('eth_gasPrice', []));
    assert.ok(gasPrice > 0n);
    assert.equal(await backend.feeRate(), Number(formatUnits(gasPrice, 'gwei')), 'GWEI');
    assert.equal(await backend.balance(), await provider.getBalance(operator.address));
    assert.deepEqual(backend.contractsInfo(), {
      network: { chainId: 31337, name: 'anvil' },
      swapContracts: { EtherSwap: evm.info.contracts.etherSwap, ERC20Swap: evm.info.contracts.erc20Swap },
      supportedContracts: { 6: { EtherSwap: evm.info.contracts.etherSwap, ERC20Swap: evm.info.contracts.erc20Swap, features: ['BatchClaim', 'CommitmentSwap'] } },
      tokens: { TRC20: evm.info.contracts.token },
    });
  });

  test('refuses another chain id, an address without a contract, and a contract that is no swap contract', async () => {
    const deps = { checkpoints: new MemoryCheckpointStore(), mnemonic: ANVIL_MNEMONIC, logger: silentLogger };
    await assert.rejects(connectEvm({ ...settings, chainId: 30 }, deps), /is on chain 31337, expected chain 30/);
    await assert.rejects(
      connectEvm({ ...settings, contracts: { ...settings.contracts, EtherSwap: user.address } }, deps),
      new RegExp(`no contract at evm.etherSwap ${user.address} on chain 31337`),
    );
    await assert.rejects(
      connectEvm({ ...settings, contracts: { ...settings.contracts, ERC20Swap: getAddress(evm.info.contracts.token) } }, deps),
      /evm.erc20Swap .* does not answer version\(\): not a swap contract/,
    );
    await assert.rejects(connectEvm({ ...settings, rpcUrl: 'http://127.0.0.1:1' }, { ...deps, attempts: 1 }), /node http:\/\/127.0.0.1:1 not reachable/);
  });
});

describe('contract event follower', () => {
  test('a lock, its claim with the preimage, and a refund after the timelock, decoded; swaps(hash) follows', async () => {
    const { instance, events } = follower(new MemoryCheckpointStore());
    await instance.sync(); // starts after the current tip
    assert.equal(events.length, 0);

    const claimed = await userLock();
    await instance.sync();
    assert.equal(events.length, 1);
    const lockup = events[0]!;
    assert.deepEqual(lockup, {
      chain: 'RBTC',
      contract: 'EtherSwap',
      contractAddress: evm.info.contracts.etherSwap,
      txHash: claimed.receipt.hash,
      logIndex: claimed.receipt.logs[0]!.index,
      block: { height: claimed.receipt.blockNumber, hash: claimed.receipt.blockHash },
      type: 'lockup',
      preimageHash: claimed.preimageHash,
      amount: 12_345_678_900_000_000n,
      apiAmount: 1_234_567n, // wei / 10^10, the dust below floored
      claimAddress: operator.address,
      refundAddress: user.address,
      timelock: claimed.timelock,
    });
    assert.equal(lockup.type === 'lockup' && (await backend.swapState(lockup)).locked, true, 'locked in the contract');

    const claim = await mined(etherSwap(operator).getFunction('claim(bytes32,uint256,address,uint256)')(claimed.preimage, claimed.amount, user.address, claimed.timelock));
    await instance.sync();
    assert.equal(events.length, 2);
    assert.deepEqual(
      { ...events[1]!, block: undefined },
      { chain: 'RBTC', contract: 'EtherSwap', contractAddress: evm.info.contracts.etherSwap, txHash: claim.hash, logIndex: claim.logs[0]!.index, block: undefined, type: 'claim', preimageHash: claimed.preimageHash, preimage: '0x' + claimed.preimage.toString('hex') },
    );
    assert.equal(lockup.type === 'lockup' && (await backend.swapState(lockup)).locked, false, 'claimed');

    const refunded = await userLock(parseEther('0.2'), 3);
    await mine(3);
    const refund = await mined(etherSwap(user).getFunction('refund(bytes32,uint256,address,uint256)')(refunded.preimageHash, refunded.amount, operator.address, refunded.timelock));
    await instance.sync();
    assert.deepEqual(events.slice(2).map((event) => [event.type, event.preimageHash, event.txHash, event.block.height]), [
      ['lockup', refunded.preimageHash, refunded.receipt.hash, refunded.receipt.blockNumber],
      ['refund', refunded.preimageHash, refund.hash, refund.blockNumber],
    ]);
    assert.equal(instance.tip?.height, await provider.getBlockNumber());
  });

  test('ERC20Swap lockups carry the token and API units by its decimals', async () => {
    const { instance, events } = follower(new MemoryCheckpointStore());
    await instance.sync();
    const token = new Contract(evm.info.contracts.token, artifact('token').abi, user);
    const erc20Swap = new Contract(evm.info.contracts.erc20Swap, artifact('erc20Swap').abi, user);
    const amount = parseEther('3');
    await mined(token.getFunction('approve')(evm.info.contracts.erc20Swap, amount));
    const preimageHash = sha256(randomBytes(32));
    const timelock = (await provider.getBlockNumber()) + 10;
    const lock = erc20Swap.getFunction('lock(bytes32,uint256,address,address,uint256)');
    const receipt = await mined(lock(preimageHash, amount, evm.info.contracts.token, operator.address, timelock));
    await instance.sync();
    assert.equal(events.length, 1);
    const event = events[0]!;
    assert.ok(event.type === 'lockup');
    assert.deepEqual(
      [event.contract, event.tokenAddress, event.amount, event.apiAmount, event.claimAddress, event.refundAddress, event.timelock, event.txHash],
      ['ERC20Swap', evm.info.contracts.token, amount, 300_000_000n, operator.address, user.address, timelock, receipt.hash],
    );
    assert.deepEqual(await backend.swapState(event), { hash: await erc20Swap.getFunction('hashValues')(preimageHash, amount, evm.info.contracts.token, operator.address, user.address, timelock), locked: true });
  });

  test('confirmations: a lockup is delivered once its block is that deep', async () => {
    await mine(); // the earlier tests' last block is then 2 deep: before where this follower starts
    const { instance, events } = follower(new MemoryCheckpointStore(), { confirmations: 2 });
    await instance.sync();
    const locked = await userLock();
    await instance.sync();
    assert.equal(events.length, 0, 'in the tip only');
    await mine();
    await instance.sync();
    assert.deepEqual(events.map((event) => event.txHash), [locked.receipt.hash]);
  });

  test('a reorg takes a delivered lockup back, and the new chain is read again', async () => {
    const { instance, events, reorgs } = follower(new MemoryCheckpointStore());
    await instance.sync();
    const fork = await provider.getBlockNumber();
    const snapshot: string = await provider.send('evm_snapshot', []);
    const lost = await userLock();
    await mine(2);
    await instance.sync();
    assert.deepEqual(events.map((event) => event.txHash), [lost.receipt.hash]);

    assert.equal(await provider.send('evm_revert', [snapshot]), true);
    const replacing = await userLock(); // another lockup at the lost one's height
    assert.equal(replacing.receipt.blockNumber, lost.receipt.blockNumber);
    await instance.sync();
    assert.equal(reorgs.length, 1);
    const [reorg] = reorgs;
    assert.deepEqual(
      [reorg!.forkHeight, reorg!.complete, reorg!.disconnected.map((block) => block.height), reorg!.removed.map((event) => event.txHash)],
      [fork, true, [fork + 3, fork + 2, fork + 1], [lost.receipt.hash]],
    );
    assert.deepEqual(events.map((event) => event.txHash), [lost.receipt.hash, replacing.receipt.hash]);
    assert.deepEqual(events[1]!.block, { height: fork + 1, hash: replacing.receipt.blockHash });
    const lostLockup = events[0]!;
    assert.ok(lostLockup.type === 'lockup');
    assert.equal((await backend.swapState(lostLockup)).locked, false, 'the lost lockup is not in the contract');
    assert.deepEqual(instance.tip, { height: fork + 1, hash: replacing.receipt.blockHash });
  });

  test('the checkpoint (SQLite) carries a restarted follower on from where it stopped', async () => {
    const url = `sqlite:${join(tempDir(), 'ferry.sqlite')}`;
    let storage = await openStorage(url);
    const first = follower(storage.checkpoints);
    const seen = await userLock();
    await first.instance.sync();
    assert.equal(first.events.length, 0, 'a new follower starts after the tip');
    const stoppedAt = first.instance.tip!;
    await first.instance.stop();
    await storage.close();

    const whileDown = await userLock();
    await mine(2);
    storage = await openStorage(url);
    assert.deepEqual(await storage.checkpoints.get('RBTC'), stoppedAt);
    const second = follower(storage.checkpoints, { startHeight: 1 }); // the checkpoint wins over startHeight
    await second.instance.sync();
    assert.deepEqual(second.events.map((event) => event.txHash), [whileDown.receipt.hash], `not ${seen.receipt.hash} again`);
    assert.deepEqual(await storage.checkpoints.get('RBTC'), second.instance.tip);

    // Down again, and the block it stopped at is replaced meanwhile: with no memory of the blocks before it, it
    // cannot list what it lost, says so, and reads a window again.
    await second.instance.stop();
    const snapshot: string = await provider.send('evm_snapshot', []);
    await mine();
    const third = follower(storage.checkpoints);
    await third.instance.sync();
    const replaced = third.instance.tip!;
    await third.instance.stop();
    await provider.send('evm_revert', [snapshot]);
    const replacing = await userLock(parseEther('0.3'));
    assert.equal(replacing.receipt.blockNumber, replaced.height);
    const fourth = follower(storage.checkpoints);
    await fourth.instance.sync();
    assert.equal(fourth.reorgs.length, 1);
    assert.deepEqual([fourth.reorgs[0]!.complete, fourth.reorgs[0]!.removed], [false, []]);
    assert.ok(fourth.reorgs[0]!.forkHeight < replaced.height);
    assert.ok(fourth.events.some((event) => event.txHash === replacing.receipt.hash), 'the new chain read');
    assert.deepEqual(fourth.instance.tip, { height: replaced.height, hash: replacing.receipt.blockHash });
    await storage.close();
  });
});
