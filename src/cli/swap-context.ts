// The setting of a `ferry swap` command: which service, which client store, which chain source, and where
// claims and refunds pay to — from flags, the environment, and the devnet when one is running.
import { CoreRpcClient } from '../chains/core-rpc.ts';
import { BitcoinCoreChain, type ChainSource } from '../client/chain.ts';
import { SwapClient } from '../client/client.ts';
import { NETWORK_NAMES, scriptOfAddress, type NetworkName } from '../client/network.ts';
import { ClientStore, defaultClientDir } from '../client/store.ts';
import type { FerryConfig } from '../config/index.ts';
import { readDevnetInfo } from '../devnet/index.ts';
import { UsageError } from './devnet-tools.ts';

export type Flags = Record<string, string | true>;

export const DEFAULT_SERVICE_URL = 'http://127.0.0.1:9001';

export function stringFlag(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  if (value === true) throw new UsageError(`--${name} needs a value`);
  return value;
}

export interface SwapContext {
  store: ClientStore;
  network: NetworkName;
  /** --service, else FERRY_SERVICE_URL, else the record's service, else http://127.0.0.1:9001. */
  serviceUrl(recorded?: string): string;
  client(recordedServiceUrl?: string): SwapClient;
  /** Where claims and refunds pay: --address, else a fresh address of the devnet's user wallet. */
  destination(): Promise<string>;
}

export function swapContext(flags: Flags, config: FerryConfig, env: Record<string, string | undefined> = process.env): SwapContext {
  const store = new ClientStore(stringFlag(flags, 'client-dir') ?? defaultClientDir(env));
  const network = (stringFlag(flags, 'network') ?? config.network) as NetworkName;
  if (!NETWORK_NAMES.includes(network)) throw new UsageError(`--network must be one of ${NETWORK_NAMES.join(', ')}`);
  const rpcUrl = stringFlag(flags, 'bitcoin-rpc');
  const chain: ChainSource | undefined = rpcUrl !== undefined ? new BitcoinCoreChain(rpcUrl) : undefined;
  const serviceUrl = (recorded?: string) => stringFlag(flags, 'service') ?? env.FERRY_SERVICE_URL ?? recorded ?? DEFAULT_SERVICE_URL;
  const address = stringFlag(flags, 'address');
  if (address !== undefined) {
    try {
      scriptOfAddress(address, network);
    } catch (error) {
      throw new UsageError(`--address: ${(error as Error).message}`);
    }
  }
  return {
    store,
    network,
    serviceUrl,
    client: (recorded) => new SwapClient({ serviceUrl: serviceUrl(recorded), network, store, chain }),
    async destination() {
      if (address !== undefined) return address;
      let info;
      try {
        info = readDevnetInfo(config.dataDir);
      } catch {
        throw new UsageError(`where should the coins go? Give --address ADDRESS (no devnet found in ${config.dataDir} to pay to)`);
      }
      const { rpcUrl: url, rpcUser: user, rpcPassword: password, wallets } = info.bitcoin;
      return new CoreRpcClient({ url, user, password, wallet: wallets.user }).getNewAddress('', 'bech32');
    },
  };
}
