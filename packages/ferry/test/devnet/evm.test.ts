// The devnet's EVM chain on a real anvil: started by startDevnet on an ephemeral port with anvil's defaults (chain
// id 31337, the test mnemonic's funded accounts, automine), boltz-core's contracts deployed and answering version(),
// swaps through EtherSwap with ethers (locked by one side, claimed with the preimage by the other, refunded after
// the timelock), the chain's state across a restart and a killed parent process, and blocks on a timer.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Contract, JsonRpcProvider, Wallet, parseEther, sha256, type ContractTransactionResponse } from 'ethers';
import { readDevnetInfo, startDevnet, type Devnet } from '@ferry/devnet/index.js';
import { artifact, isArtifactCode, TOKEN, type ContractName } from '@ferry/devnet/evm/contracts.js';
import { startEvmDevnet } from '@ferry/devnet/evm/index.js';
import { ephemeralDevnetPorts } from '../helpers/ports.ts';

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-evm-'));
  dirs.push(dir);
  return dir;
};
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

let dataDir: string;
let devnet: Devnet;
let provider: JsonRpcProvider;
let operator: Wallet;
let user: Wallet;

const contract = (name: ContractName, signer: Wallet): Contract => new Contract(devnet.info.evm.contracts[name], artifact(name).abi, signer);
const mined = async (sent: Promise<ContractTransactionResponse>) => (await (await sent).wait())!;
const lock = (signer: Wallet) => contract('etherSwap', signer).getFunction('lock(bytes32,address,uint256)');
const claim = (signer: Wallet) => contract('etherSwap', signer).getFunction('claim(bytes32,uint256,address,uint256)');
const refund = (signer: Wallet) => contract('etherSwap', signer).getFunction('refund(bytes32,uint256,address,uint256)');

function connect(): void {
  provider = new JsonRpcProvider(devnet.info.evm.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1, batchStallTime: 0 });
  operator = new Wallet(devnet.info.evm.accounts.operator.privateKey, provider);
  user = new Wallet(devnet.info.evm.accounts.user.privateKey, provider);
}

before(async () => {
  dataDir = tempDir();
  devnet = await startDevnet({ dataDir, ...ephemeralDevnetPorts });
  connect();
});

after(async () => {
  provider?.destroy();
  await devnet?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('the devnet EVM chain (anvil)', () => {
  test('runs with anvil defaults on an ephemeral port, listed in devnet.json', async () => {
    const { evm } = devnet.info;
    assert.deepEqual(readDevnetInfo(dataDir).evm, evm);
    assert.match(evm.rpcUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(new URL(evm.rpcUrl).port, '8545', 'ephemeral in tests');
    assert.equal(evm.chainId, 31337);
    assert.equal(Number(await provider.send('eth_chainId', [])), 31337);
    assert.deepEqual(
      [evm.accounts.operator.index, evm.accounts.operator.address, evm.accounts.user.index, evm.accounts.user.address],
      [0, '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', 1, '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'],
      "anvil's accounts 0 and 1 of the test mnemonic",
    );
    const accounts: string[] = await provider.send('eth_accounts', []);
    assert.deepEqual(accounts.slice(0, 2).map((a) => a.toLowerCase()), [operator.address.toLowerCase(), user.address.toLowerCase()]);
    assert.ok((await provider.getBalance(user.address)) > parseEther('9999'), 'funded by anvil');
  });

  test("boltz-core's EtherSwap, ERC20Swap and TestERC20 are deployed and answer", async () => {
    for (const name of ['etherSwap', 'erc20Swap', 'token'] as const) {
      assert.ok(isArtifactCode(await provider.getCode(devnet.info.evm.contracts[name]), name), `${name}: boltz-core's runtime code`);
    }
    assert.equal(await contract('etherSwap', user).getFunction('version')(), 6n);
    assert.equal(await contract('erc20Swap', user).getFunction('version')(), 6n);
    const token = contract('token', user);
    assert.deepEqual([await token.getFunction('symbol')(), await token.getFunction('decimals')()], [TOKEN.symbol, 18n]);
    assert.equal(await token.getFunction('balanceOf')(user.address), TOKEN.supply / 2n, 'half the tokens are the user');
  });

  test('EtherSwap: the operator locks, the user claims with the preimage; and the other way round', async () => {
    for (const [locker, claimer] of [[operator, user], [user, operator]]) {
      const preimage = randomBytes(32);
      const amount = parseEther('0.5');
      const timelock = (await provider.getBlockNumber()) + 100;
      const locked = await mined(lock(locker)(sha256(preimage), claimer.address, timelock, { value: amount }));
      const lockup = contract('etherSwap', locker).interface.parseLog(locked.logs[0]!)!;
      assert.deepEqual([lockup.name, lockup.args.amount, lockup.args.claimAddress], ['Lockup', amount, claimer.address]);

      const before = await provider.getBalance(claimer.address);
      const claimed = await mined(claim(claimer)(preimage, amount, locker.address, timelock));
      const event = contract('etherSwap', claimer).interface.parseLog(claimed.logs[0]!)!;
      assert.deepEqual([event.name, event.args.preimage], ['Claim', '0x' + preimage.toString('hex')]);
      assert.equal(await provider.getBalance(claimer.address), before + amount - claimed.fee);
      await assert.rejects(claim(claimer)(preimage, amount, locker.address, timelock), /SwapNotFound|reverted/, 'claimed once');
    }
  });

  test('EtherSwap refunds after the timelock, a block height: mined by evm_mine', async () => {
    const preimageHash = sha256(randomBytes(32));
    const amount = parseEther('0.1');
    const timelock = (await provider.getBlockNumber()) + 3;
    await mined(lock(user)(preimageHash, operator.address, timelock, { value: amount }));
    await assert.rejects(refund(user)(preimageHash, amount, operator.address, timelock), /SwapNotTimedOut|reverted/);
    await provider.send('evm_mine', []); // the refund goes into the next block: the timelock's
    const refunded = await mined(refund(user)(preimageHash, amount, operator.address, timelock));
    assert.equal(refunded.blockNumber, timelock, 'the first block the contract allows');
  });

  test("a restart loads anvil's state: contracts, balances, locked swaps; nothing is deployed again", async () => {
    const preimage = randomBytes(32);
    const amount = parseEther('0.25');
    const timelock = (await provider.getBlockNumber()) + 100;
    await mined(lock(operator)(sha256(preimage), user.address, timelock, { value: amount }));
    const before = {
      height: await provider.getBlockNumber(),
      nonce: await provider.getTransactionCount(operator.address),
      user: await provider.getBalance(user.address),
      contracts: devnet.info.evm.contracts,
    };
    const pid = Number(JSON.parse(readFileSync(join(dataDir, 'evm', 'anvil.pid'), 'utf8')).pid);
    provider.destroy();
    await devnet.close();
    assert.equal(alive(pid), false, 'anvil ended with the devnet');
    assert.equal(existsSync(join(dataDir, 'evm', 'anvil.pid')), false);

    devnet = await startDevnet({ dataDir, ...ephemeralDevnetPorts });
    connect();
    assert.deepEqual(devnet.info.evm.contracts, before.contracts);
    assert.equal(await provider.getBlockNumber(), before.height);
    assert.equal(await provider.getTransactionCount(operator.address), before.nonce, 'no deployment on restart');
    assert.equal(await provider.getBalance(user.address), before.user);
    const claimed = await mined(claim(user)(preimage, amount, operator.address, timelock));
    assert.equal(await provider.getBalance(user.address), before.user + amount - claimed.fee, 'the lock made before the restart');
  });

  test('a second devnet on the same data directory is refused while the first runs', async () => {
    await assert.rejects(startEvmDevnet({ dataDir, port: 0 }), /is in use by anvil \d+ of the devnet in process/);
  });

  test("anvil does not outlive its devnet's process killed with SIGKILL; its state is dumped and found again", async () => {
    const dir = tempDir();
    const script = `const { startEvmDevnet } = await import(${JSON.stringify(import.meta.resolve('@ferry/devnet/evm/index.js'))});
      const evm = await startEvmDevnet({ dataDir: ${JSON.stringify(dir)}, port: 0 });
      console.log(JSON.stringify({ contracts: evm.info.contracts }));
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve) => child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString())));
    const { contracts } = JSON.parse(line);
    const { pid } = JSON.parse(readFileSync(join(dir, 'evm', 'anvil.pid'), 'utf8'));
    child.kill('SIGKILL');
    for (let i = 0; i < 100 && alive(pid); i++) await sleep(50);
    assert.equal(alive(pid), false, 'the kernel told anvil (pdeathsig), and it exited');
    assert.ok(JSON.parse(readFileSync(join(dir, 'evm', 'state.json'), 'utf8')).accounts, 'state.json dumped on the way out');

    // No devnet.json here: the contracts are found where a first start puts them.
    const again = await startEvmDevnet({ dataDir: dir, port: 0, blockIntervalMs: 100 });
    try {
      assert.deepEqual(again.info.contracts, contracts);
      assert.equal(await again.provider.getTransactionCount(again.info.accounts.operator.address), 4, 'three deployments and a token transfer, once');
      const height = await again.provider.getBlockNumber();
      await sleep(700);
      assert.ok((await again.provider.getBlockNumber()) >= height + 3, 'blockIntervalMs mines blocks without transactions');
    } finally {
      await again.close();
    }
  });
});
