// Power cuts in an RBTC submarine swap: the devnet runs as its own process, `ferry start` as another that SIGKILLs
// itself (FERRY_CRASH_AT) right after recording the user's Lockup event, or right after its claim was mined but
// before recording it. Restarted without the fault, Ferry finishes the swap: alice's invoice paid once, the
// contract's Claim event emitted once, and Ferry's account credited once (the lockup less one claim's gas).
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Contract, JsonRpcProvider, Wallet, type ContractTransactionResponse } from 'ethers';
import type { DevnetInfo } from '@ferry/devnet/index.js';
import { artifact } from '@ferry/devnet/evm/contracts.js';
import { fundAccounts } from '@ferry/devnet/evm/fund.js';
import { operatorWallet } from '../../src/chains/evm/operator.ts';
import { loadOrCreateMnemonic } from '../../src/keys/mnemonic-file.ts';
import { useDevnetProcess } from '../helpers/devnet-process.ts';
import { LightningNodes } from './scenarios/support/lightning.ts';

const devnet = useDevnetProcess('ferry-evm-crash-');
let ferryDir: string;
let configFile: string;
let info: DevnetInfo;
let lightning: LightningNodes;
let provider: JsonRpcProvider;
let user: Wallet;
let etherSwap: Contract;
let ferryAddress: string;

before(async () => {
  await devnet.ready;
  ferryDir = join(devnet.root, 'ferry');
  mkdirSync(ferryDir);
  configFile = join(ferryDir, 'ferry.toml');
  writeFileSync(configFile, '[bitcoin]\npollIntervalMs = 150\n[liquid]\npollIntervalMs = 150\n[evm]\npollIntervalMs = 150\n');
  info = devnet.info;
  lightning = new LightningNodes(info);
  provider = new JsonRpcProvider(info.evm.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
  user = new Wallet(info.evm.accounts.user.privateKey, provider);
  etherSwap = new Contract(info.evm.contracts.etherSwap, artifact('etherSwap').abi, user);
  // Ferry's account derives from its own mnemonic: made now, so the devnet's account 0 can fund it first.
  ferryAddress = operatorWallet(loadOrCreateMnemonic(join(ferryDir, 'mnemonic'))).address;
  await fundAccounts(provider, new Wallet(info.evm.accounts.operator.privateKey, provider), [ferryAddress]);
});

after(() => provider?.destroy());

/** `ferry start` against the devnet process's nodes, anvil and contracts included. */
const startFerry = (crashAt?: string) =>
  devnet.startFerry({
    FERRY_CONFIG: configFile,
    FERRY_DATA_DIR: ferryDir,
    FERRY_EVM_RPC_URL: info.evm.rpcUrl,
    FERRY_EVM_ETHER_SWAP: info.evm.contracts.etherSwap,
    FERRY_EVM_ERC20_SWAP: info.evm.contracts.erc20Swap,
    FERRY_CRASH_AT: crashAt ?? '',
  });

async function statusOf(apiUrl: string, id: string): Promise<string> {
  return ((await (await fetch(`${apiUrl}/v2/swap/${id}`)).json()) as { status: string }).status;
}

describe('crash recovery of RBTC submarine swaps', { timeout: 900_000 }, () => {
  for (const point of ['submarine.lockup-seen', 'user-lockup.claim-broadcast']) {
    test(`a crash at ${point}: the invoice is paid once and the lockup claimed once`, async () => {
      const sat = 35_000;
      const crashing = await startFerry(point);
      const { invoice, paymentHash } = await lightning.addInvoice('alice', sat);
      const aliceBefore = await lightning.balance('alice');
      const response = await fetch(`${crashing.apiUrl}/v2/swap/submarine`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ from: 'RBTC', to: 'BTC', invoice }),
      });
      assert.equal(response.status, 201);
      const created = (await response.json()) as { id: string; claimAddress: string; expectedAmount: number; timeoutBlockHeight: number };
      assert.equal(created.claimAddress, ferryAddress);
      const ferryBefore = await provider.getBalance(ferryAddress);
      const amount = BigInt(created.expectedAmount) * 10n ** 10n;
      const sent = (await etherSwap.getFunction('lock(bytes32,address,uint256)')(`0x${paymentHash}`, created.claimAddress, created.timeoutBlockHeight, {
        value: amount,
      })) as ContractTransactionResponse;
      const lockBlock = (await sent.wait())!.blockNumber;

      await crashing.process.exited;
      assert.equal(crashing.process.child.signalCode, 'SIGKILL', crashing.process.lines.slice(-20).join('\n'));
      assert.ok(crashing.process.lines.some((line) => line.includes(`FERRY_CRASH_AT=${point}`)), 'killed at the named point');

      const ferry = await startFerry();
      const deadline = Date.now() + 30_000;
      while ((await statusOf(ferry.apiUrl, created.id)) !== 'transaction.claimed') {
        if (Date.now() > deadline) throw new Error(`not claimed: ${await statusOf(ferry.apiUrl, created.id)}\n${ferry.process.lines.slice(-20).join('\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const aliceAfter = await lightning.balance('alice');
      assert.equal(aliceAfter.localMsat - aliceBefore.localMsat, BigInt(sat) * 1000n, 'alice was paid once');
      assert.equal((await lightning.invoice('alice', paymentHash)).state, 'SETTLED');
      const claims = await etherSwap.queryFilter(etherSwap.filters.Claim(`0x${paymentHash}`), lockBlock);
      assert.equal(claims.length, 1, 'claimed once');
      const receipt = (await provider.getTransactionReceipt(claims[0].transactionHash))!;
      assert.equal(receipt.from, ferryAddress);
      assert.equal(await provider.getBalance(ferryAddress), ferryBefore + amount - receipt.gasUsed * receipt.gasPrice, "Ferry's account credited once");
      ferry.process.child.kill('SIGTERM');
      assert.equal(await ferry.process.exited, 0);
    });
  }
});
