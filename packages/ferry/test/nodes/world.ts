// Ferry started as an operator starts it, against the nodes of a nodes file, and the user's side of every swap:
// `ferry start` as a child process with a config file written from the file's [ferry] table (devnet disabled, so
// every backend is the external one), the client SDK pointed at its API, the user's wallets and a miner on each
// regtest chain, an EVM account per RBTC swap, and the counterparty Lightning node.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Scripts } from 'boltz-core';
import { stringify } from 'smol-toml';
import { JsonRpcProvider, Wallet, parseEther } from 'ethers';
import { CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';
import { unconfidentialAddress } from '@ferry/sdk/chains/liquid/network.js';
import { operatorWallet } from '../../src/chains/evm/operator.ts';
import { addressOfScript, FileClientStore, SwapClient, type EvmAccount } from '@ferry/sdk/client/node.js';
import { environment, loadConfig, servesEvm, servesLiquid, type FerryConfig } from '../../src/config/index.ts';
import { loadOrCreateMnemonic } from '../../src/keys/mnemonic-file.ts';
import { runFerry, type FerryProcess } from '../helpers/ferry-process.ts';
import { connectCounterparty, type Counterparty } from './counterparty.ts';
import type { NodesConfig, UserChain } from './nodes-file.ts';

export type UtxoCurrency = 'BTC' | 'L-BTC';

/** One UTXO chain as the user sees it. */
export interface UserChainHandle {
  currency: UtxoCurrency;
  /** The node, no wallet: blocks, transactions, the UTXO set. */
  node: CoreRpcClient;
  /** The user's wallet: funds lockups, receives claims. */
  wallet: CoreRpcClient;
  /** Mines blocks to an address no wallet owns (P2WSH of OP_TRUE), so no wallet's balance moves by mining. */
  mine(blocks?: number): Promise<void>;
}

export interface NodeWorld {
  apiUrl: string;
  ferry: FerryProcess;
  config: FerryConfig;
  client: SwapClient;
  chains: Partial<Record<UtxoCurrency, UserChainHandle>>;
  counterparty: Counterparty;
  /** RBTC: the node, Ferry's operator address, and a client on a new account funded from the user's key. */
  evm?: { rpcUrl: string; provider: JsonRpcProvider; operator: string; newClient(): Promise<{ client: SwapClient; address: string }> };
  /** The last lines Ferry logged, for failure messages. */
  ferryLog(lines?: number): string;
  close(): Promise<void>;
}

/** What Ferry's process must not take from the caller's environment: every override of a config key. */
const withoutConfigEnvironment = (): Record<string, undefined> => Object.fromEntries(Object.keys(environment).map((name) => [name, undefined]));

const REGTEST_CHAINS = ['regtest', 'elementsregtest', 'liquidregtest'];
// RSK, Ethereum and their public test networks: the suite spends and mines, so it refuses them.
const PUBLIC_EVM_CHAINS = [1n, 30n, 31n, 11155111n, 17000n];

function merged(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] =
      typeof value === 'object' && value !== null && !Array.isArray(value) && typeof current === 'object' && current !== null && !Array.isArray(current)
        ? merged(current as Record<string, unknown>, value as Record<string, unknown>)
        : value;
  }
  return out;
}

/** Ferry's config file: the operator's [ferry] table, quicker polling unless it says otherwise, and the suite's own places. */
function ferryConfigText(nodes: NodesConfig, dataDir: string): string {
  const pollFast = { bitcoin: { pollIntervalMs: 250 }, liquid: { pollIntervalMs: 250 }, evm: { pollIntervalMs: 250 } };
  const suite = { dataDir, api: { host: '127.0.0.1', port: 0 }, metrics: { port: 0 }, devnet: { enabled: false }, log: { level: 'info' } };
  return stringify(merged(merged(pollFast, nodes.ferry), suite));
}

function rpcOf(chain: UserChain): CoreRpcClient {
  return new CoreRpcClient({ url: chain.rpcUrl, user: chain.rpcUser, password: chain.rpcPassword });
}

async function userChain(currency: UtxoCurrency, chain: UserChain): Promise<UserChainHandle> {
  const node = rpcOf(chain);
  const { chain: name } = await node.getBlockchainInfo();
  if (!REGTEST_CHAINS.includes(name)) throw new Error(`the ${currency} node at ${chain.rpcUrl} runs "${name}": the suite mines and spends, so it runs on regtest only`);
  const wallet = node.wallet(chain.wallet);
  await wallet.getWalletInfo(); // a missing wallet says so now, not in the middle of a swap
  const anyoneCanSpend = Scripts.p2wshOutput(Uint8Array.of(0x51));
  const sink = currency === 'BTC' ? addressOfScript(anyoneCanSpend, 'regtest') : unconfidentialAddress(anyoneCanSpend, 'regtest');
  return {
    currency,
    node,
    wallet,
    async mine(blocks = 1) {
      await node.generateToAddress(blocks, sink);
    },
  };
}

/** One sender at a time from the user's EVM account: its nonces must not race. */
function serialized<T>(): (job: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (job) => {
    const run = tail.then(job, job);
    tail = run.catch(() => undefined);
    return run;
  };
}

export async function startNodeWorld(nodes: NodesConfig): Promise<NodeWorld> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ferry-nodes-'));
  const cleanups: (() => Promise<void> | void)[] = [() => rmSync(dataDir, { recursive: true, force: true })];
  const close = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };
  try {
    const configFile = join(dataDir, 'ferry.toml');
    writeFileSync(configFile, ferryConfigText(nodes, dataDir), { mode: 0o600 });
    const config = loadConfig({ file: configFile, env: {} }); // Ferry's own checks, with the key named
    if (config.network !== 'regtest') throw new Error(`ferry.network is ${config.network}: the suite mines and spends, so it runs on regtest only`);

    const chains: NodeWorld['chains'] = { BTC: await userChain('BTC', nodes.user.bitcoin) };
    if (servesLiquid(config)) chains['L-BTC'] = await userChain('L-BTC', nodes.user.liquid!);
    const counterparty = connectCounterparty(nodes.counterparty);
    await counterparty.pubkey(); // reachable with these credentials

    let evm: NodeWorld['evm'];
    if (servesEvm(config)) {
      const provider = new JsonRpcProvider(config.evm.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
      cleanups.push(() => provider.destroy());
      const { chainId } = await provider.getNetwork();
      if (PUBLIC_EVM_CHAINS.includes(chainId)) throw new Error(`the EVM node at ${config.evm.rpcUrl} runs chain ${chainId}: the suite runs on a local chain only`);
      const funder = new Wallet(nodes.user.evm!.privateKey, provider);
      const send = serialized<void>();
      const topUp = (to: string, value: bigint) => send(async () => void (await (await funder.sendTransaction({ to, value })).wait()));
      // Ferry's account: its mnemonic's m/44'/60'/0'/0/0, made now when Ferry would make it, so it can be funded first.
      const operator = operatorWallet(loadOrCreateMnemonic(config.swap.mnemonicPath || join(dataDir, 'mnemonic'))).address;
      if ((await provider.getBalance(operator)) < parseEther('1')) await topUp(operator, parseEther('1'));
      evm = {
        rpcUrl: config.evm.rpcUrl,
        provider,
        operator,
        async newClient() {
          const wallet = Wallet.createRandom();
          await topUp(wallet.address, parseEther('0.1'));
          const account: EvmAccount = { privateKey: wallet.privateKey };
          const client = new SwapClient({ serviceUrl: apiUrl, network: 'regtest', store: new FileClientStore(join(dataDir, `client-${wallet.address}`)), evm: { rpcUrl: config.evm.rpcUrl, account } });
          cleanups.push(() => client.close());
          return { client, address: wallet.address };
        },
      };
    }

    const ferry = runFerry(['start'], { ...withoutConfigEnvironment(), FERRY_CONFIG: configFile });
    cleanups.push(async () => {
      if (ferry.child.exitCode === null && ferry.child.signalCode === null) {
        ferry.child.kill('SIGTERM');
        await ferry.exited;
      }
    });
    const listening = await ferry.waitFor((entry) => entry.message === 'API listening', 120_000);
    const apiUrl = listening.url as string;
    const client = new SwapClient({ serviceUrl: apiUrl, network: 'regtest', store: new FileClientStore(join(dataDir, 'client')) });
    cleanups.push(() => client.close());
    return {
      apiUrl,
      ferry,
      config,
      client,
      chains,
      counterparty,
      evm,
      ferryLog: (lines = 40) => ferry.lines.slice(-lines).join('\n'),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
