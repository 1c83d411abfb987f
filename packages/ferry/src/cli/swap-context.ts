// The setting of a `ferry swap` command: which service, which client store, which chain sources (--bitcoin-rpc,
// --elements-rpc), and where claims and refunds pay to — from flags, the environment, and the devnet when one is
// running — checked against the chain of each swap's currency.
import { BitcoinCoreChain, ElementsChain, type ChainSource } from '@ferry/sdk/client/chain.js';
import { SWAP_CURRENCIES, destinationOf, swapChain } from '@ferry/sdk/client/chains/index.js';
import { CONTRACT_CURRENCIES } from '@ferry/sdk/client/chains/contract.js';
import { SwapClient } from '@ferry/sdk/client/client.js';
import { NETWORK_NAMES, type NetworkName } from '@ferry/sdk/client/network.js';
import '@ferry/sdk/client/node/websocket.js';
import { FileClientStore, defaultClientDir } from '@ferry/sdk/client/node/file-store.js';
import type { FerryConfig } from '../config/index.ts';
import { readDevnetInfo } from '@ferry/devnet/info-file.js';
import { chainRpc, walletNames, type DevnetChain } from '@ferry/devnet/cli/chains.js';
import { UsageError } from './usage-error.ts';

export type Flags = Record<string, string | true>;

export const DEFAULT_SERVICE_URL = 'http://127.0.0.1:9001';

export function stringFlag(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  if (value === true) throw new UsageError(`--${name} needs a value`);
  return value;
}

/** --from / --to: the swap's chain currency, BTC unless given; `known`: UTXO chains and contract chains (RBTC). */
export function currencyFlag(flags: Flags, name: 'from' | 'to', known: readonly string[] = [...SWAP_CURRENCIES, ...CONTRACT_CURRENCIES]): string {
  const value = stringFlag(flags, name) ?? 'BTC';
  const names = known.length > 1 ? `${known.slice(0, -1).join(', ')} or ${known.at(-1)}` : known[0];
  if (!known.includes(value)) throw new UsageError(`--${name} must be ${names}, not ${value}`);
  return value;
}

/** --address pays claims (and refunds, in `ferry swap refund`); --refund-address a chain swap's refund, on its other chain. */
export type AddressFlag = 'address' | 'refund-address';

export interface SwapContext {
  store: FileClientStore;
  network: NetworkName;
  /** --service, else FERRY_SERVICE_URL, else the record's service, else http://127.0.0.1:9001. */
  serviceUrl(recorded?: string): string;
  client(recordedServiceUrl?: string): SwapClient;
  /** UsageError unless the address flag (default --address), when given, is one a swap on `currency` can pay to. */
  checkAddress(currency: string, flag?: AddressFlag): void;
  /** Where claims and refunds of a swap on `currency` pay: the address flag, else a fresh address of the devnet's user wallet. */
  destination(currency: string, flag?: AddressFlag): Promise<string>;
}

export function swapContext(flags: Flags, config: FerryConfig, env: Record<string, string | undefined> = process.env): SwapContext {
  const store = new FileClientStore(stringFlag(flags, 'client-dir') ?? defaultClientDir(env));
  const network = (stringFlag(flags, 'network') ?? config.network) as NetworkName;
  if (!NETWORK_NAMES.includes(network)) throw new UsageError(`--network must be one of ${NETWORK_NAMES.join(', ')}`);
  const nodes: [string, new (url: string) => ChainSource][] = [
    ['bitcoin-rpc', BitcoinCoreChain],
    ['elements-rpc', ElementsChain],
  ];
  const chains = nodes.flatMap(([flag, Source]) => {
    const url = stringFlag(flags, flag);
    return url === undefined ? [] : [new Source(url)];
  });
  const serviceUrl = (recorded?: string) => stringFlag(flags, 'service') ?? env.FERRY_SERVICE_URL ?? recorded ?? DEFAULT_SERVICE_URL;
  const checkAddress = (currency: string, flag: AddressFlag = 'address') => {
    const address = stringFlag(flags, flag);
    if (address === undefined) return;
    try {
      destinationOf(swapChain(currency), address, network);
    } catch (error) {
      throw new UsageError(`--${flag}: ${(error as Error).message}`);
    }
  };
  return {
    store,
    network,
    serviceUrl,
    client: (recorded) => new SwapClient({ serviceUrl: serviceUrl(recorded), network, store, chain: chains }),
    checkAddress,
    async destination(currency, flag = 'address') {
      checkAddress(currency, flag);
      const address = stringFlag(flags, flag);
      if (address !== undefined) return address;
      let info;
      try {
        info = readDevnetInfo(config.dataDir);
      } catch {
        throw new UsageError(`where should the coins go? Give --${flag} ADDRESS (no devnet found in ${config.dataDir} to pay to)`);
      }
      // The devnet's chains are named by the currencies swaps use (BTC, L-BTC); an L-BTC wallet answers a confidential address.
      const chain = currency as DevnetChain;
      return chainRpc(info, chain, walletNames(info, chain).user).getNewAddress('', 'bech32');
    },
  };
}

/** Whether the command was given an EVM account (--evm-key or --evm-mnemonic). */
export const evmAccountGiven = (flags: Flags): boolean => stringFlag(flags, 'evm-key') !== undefined || stringFlag(flags, 'evm-mnemonic') !== undefined;
