// `ferry devnet <tool>`: small helpers for people and scripts driving the devnet, talking to it only through
// the endpoints listed in devnet.json (Core and elementsd JSON-RPC, LND REST, clnrest, anvil's JSON-RPC), exactly as
// any other tool would. The service's `ferry devnet` command reads devnet.json and hands each tool to runDevnetTool.
import type { DevnetInfo } from '../index.ts';
import { randomUUID } from 'node:crypto';
import { chainRpc, devnetChains, walletBalances, walletNames } from './chains.ts';
import type { EvmRole } from './evm.ts';
import { NodeError, clnCall, clnPay, lndCall, lndPay } from './lightning.ts';

/** The EVM chain's tools, loaded only when used: ethers takes ~150 ms to load, which no other tool needs. */
const evmTools = () => import('./evm.ts');
const evmRoles: EvmRole[] = ['operator', 'user'];
const rbtcAmount = /^\d+(\.\d{1,18})?$/;

export type Print = (value: unknown) => void;

function lightningNode(info: DevnetInfo, name: string) {
  const node = info.lightning?.[name];
  if (!node) throw new UsageError(`no lightning node named ${name}; nodes: ${[...Object.keys(info.lightning ?? {}), ...Object.keys(info.cln ?? {})].join(', ')}`);
  return node;
}

/** An LND REST call on a devnet node; a refusal names the node. */
async function lndNodeCall<T>(info: DevnetInfo, name: string, method: string, path: string, body?: unknown): Promise<T> {
  const node = lightningNode(info, name);
  try {
    return await lndCall<T>(node, method, path, body);
  } catch (error) {
    throw error instanceof NodeError ? new Error(`${name}: ${error.message}`) : error;
  }
}

export class UsageError extends Error {}

const toolChains = [...devnetChains, 'RBTC'] as const;
type ToolChain = (typeof toolChains)[number];

/** --chain: BTC (the default), L-BTC or RBTC (the EVM chain). */
function chainFlag(value: string | true | undefined): ToolChain {
  if (value === undefined) return 'BTC';
  if (toolChains.includes(value as ToolChain)) return value as ToolChain;
  throw new UsageError(`--chain must be ${toolChains.join(', ')}${value === true ? '' : `, not ${value}`}`);
}

/** --wallet on the EVM chain: the role of a devnet account. */
function evmRole(value: string): EvmRole {
  if (evmRoles.includes(value as EvmRole)) return value as EvmRole;
  throw new UsageError(`--wallet on RBTC must be ${evmRoles.join(' or ')}, not ${value}`);
}

function positiveInteger(text: string | undefined, what: string): number {
  if (text === undefined || !/^\d+$/.test(text) || Number(text) <= 0) throw new UsageError(`${what} must be a positive integer`);
  return Number(text);
}

export const devnetToolsUsage = `devnet tools (read data/devnet.json of a running devnet):
  ferry devnet mine [BLOCKS] [--chain C]         mine blocks (default 1; on BTC and L-BTC to the user wallet);
                                                 C: BTC (default), L-BTC or RBTC (the EVM chain, anvil)
  ferry devnet send ADDRESS AMOUNT [--chain C] [--wallet W]
                                                 send AMOUNT BTC, L-BTC or RBTC from a devnet wallet (default user;
                                                 on RBTC user or operator, the accounts devnet.json lists)
  ferry devnet balances                          BTC and L-BTC wallet balances (sat), RBTC of the EVM accounts (wei
                                                 and RBTC, as strings), Lightning channel balances
  ferry devnet invoice SATS [--node N] [--memo M]  create an invoice on a Lightning node (default alice)
  ferry devnet pay INVOICE [--node N]            pay an invoice from a Lightning node (default alice)
`;

export async function runDevnetTool(
  info: DevnetInfo,
  tool: string,
  args: string[],
  flags: Record<string, string | true>,
  print: Print,
): Promise<boolean> {
  const flag = (name: string, fallback: string) => (typeof flags[name] === 'string' ? (flags[name] as string) : fallback);
  const chain = chainFlag(flags.chain);
  switch (tool) {
    case 'mine': {
      const blocks = args[0] === undefined ? 1 : positiveInteger(args[0], 'BLOCKS');
      if (chain === 'RBTC') {
        print(await (await evmTools()).evmMine(info, blocks));
        return true;
      }
      const address = await chainRpc(info, chain, walletNames(info, chain).user).getNewAddress();
      const hashes = await chainRpc(info, chain).generateToAddress(blocks, address);
      print({ blocks: hashes, height: await chainRpc(info, chain).getBlockCount() });
      return true;
    }
    case 'send': {
      const [address, amount] = args;
      if (chain === 'RBTC') {
        const { evmSend, isEvmAddress } = await evmTools();
        if (!address || !isEvmAddress(address) || !amount || !rbtcAmount.test(amount) || Number(amount) <= 0) {
          throw new UsageError('usage: ferry devnet send ADDRESS AMOUNT --chain RBTC [--wallet user|operator] (a 0x address, AMOUNT in RBTC)');
        }
        print(await evmSend(info, address, amount, evmRole(flag('wallet', 'user'))));
        return true;
      }
      if (!address || !amount || !/^\d+(\.\d{1,8})?$/.test(amount) || Number(amount) <= 0) {
        throw new UsageError('usage: ferry devnet send ADDRESS AMOUNT [--chain BTC|L-BTC|RBTC] [--wallet W] (AMOUNT in coins of the chain)');
      }
      const wallet = chainRpc(info, chain, flag('wallet', walletNames(info, chain).user));
      print({ txid: await wallet.sendToAddress(address, Number(amount)) });
      return true;
    }
    case 'balances': {
      const lightning: Record<string, unknown> = {};
      for (const name of Object.keys(info.lightning ?? {})) {
        const balance = await lndNodeCall<{ local_balance: { sat: string }; remote_balance: { sat: string } }>(info, name, 'GET', '/v1/balance/channels');
        lightning[name] = { local: Number(balance.local_balance.sat), remote: Number(balance.remote_balance.sat) };
      }
      // CLN nodes over clnrest: to_us is the local side, receivable the remote one (HTLCs in flight in neither)
      for (const [name, node] of Object.entries(info.cln ?? {})) {
        const channels = (await clnCall<{ channels: { to_us_msat: number; receivable_msat: number }[] }>(node, 'listpeerchannels')).channels;
        const local = channels.reduce((sum, c) => sum + c.to_us_msat, 0);
        const remote = channels.reduce((sum, c) => sum + c.receivable_msat, 0);
        lightning[name] = { local: Math.floor(local / 1000), remote: Math.floor(remote / 1000) };
      }
      print({
        bitcoin: await walletBalances(info, 'BTC'),
        elements: await walletBalances(info, 'L-BTC'),
        evm: await (await evmTools()).evmBalances(info),
        lightning,
      });
      return true;
    }
    case 'invoice': {
      const sats = positiveInteger(args[0], 'SATS');
      const cln = info.cln?.[flag('node', 'alice')];
      if (cln) {
        const made = await clnCall<{ bolt11: string; payment_hash: string }>(cln, 'invoice', {
          amount_msat: sats * 1000,
          label: `ferry-devnet-${randomUUID()}`,
          description: flag('memo', ''),
        });
        print({ invoice: made.bolt11, paymentHash: made.payment_hash });
        return true;
      }
      const invoice = await lndNodeCall<{ payment_request: string; r_hash: string }>(info, flag('node', 'alice'), 'POST', '/v1/invoices', {
        value: String(sats),
        memo: flag('memo', ''),
      });
      print({ invoice: invoice.payment_request, paymentHash: Buffer.from(invoice.r_hash, 'base64').toString('hex') });
      return true;
    }
    case 'pay': {
      const [invoice] = args;
      if (!invoice) throw new UsageError('usage: ferry devnet pay INVOICE [--node N]');
      const name = flag('node', 'alice');
      const cln = info.cln?.[name];
      const result = cln ? await clnPay(cln, invoice) : await lndPay(lightningNode(info, name), invoice);
      print({
        status: result.status,
        paymentHash: result.paymentHash,
        preimage: result.preimage,
        feeMsat: result.feeMsat,
        failureReason: result.failureReason,
      });
      return result.status !== 'FAILED';
    }
    default:
      throw new UsageError(`unknown devnet tool: ${tool}\n\n${devnetToolsUsage}`);
  }
}
