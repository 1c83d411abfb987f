// The wallet side of either devnet node's JSON-RPC server: wallet resolution (URI path, or the only loaded wallet),
// wallet-method routing, the wallet-management RPCs (createwallet ... listwalletdir) and listunspent's arguments.
import type { Server } from 'node:http';
import { RpcFailure, RPC_INVALID_PARAMETER, RPC_WALLET_ERROR, RPC_WALLET_NOT_FOUND, RPC_WALLET_NOT_SPECIFIED } from '../bitcoin/rpc/errors.ts';
import { startJsonRpcServer, type JsonRpcServerOptions } from '../bitcoin/rpc/http.ts';
import { integerArg, type MethodTable } from '../bitcoin/rpc/params.ts';

/** The loaded wallets, as resolution sees them. */
export interface LoadedWallets<W> {
  get(name: string): W | undefined;
  names(): string[];
}

/** The wallet manager, as the wallet-management RPCs see it. */
export interface WalletCatalog<W extends { name: string }> extends LoadedWallets<W> {
  create(name: string): W;
  load(name: string): W;
  unload(name: string): void;
  allNames(): string[];
}

/** What every RPC method of a node runs with. */
export interface NodeCallContext<N, M, W> {
  node: N;
  wallets: M;
  /** The wallet this call is for, resolved as Core does (URI path, or the only loaded wallet). */
  wallet(): W;
}

export function resolveWallet<W>(wallets: LoadedWallets<W>, uriWallet: string | undefined): W {
  if (uriWallet !== undefined) {
    const wallet = wallets.get(uriWallet);
    if (!wallet) throw new RpcFailure(RPC_WALLET_NOT_FOUND, 'Requested wallet does not exist or is not loaded');
    return wallet;
  }
  const names = wallets.names();
  if (names.length === 1) return wallets.get(names[0])!;
  if (names.length === 0) {
    throw new RpcFailure(
      RPC_WALLET_NOT_FOUND,
      'No wallet is loaded. Load a wallet using loadwallet or create a new one with createwallet. (Note: A default wallet is no longer automatically created)',
    );
  }
  throw new RpcFailure(RPC_WALLET_NOT_SPECIFIED, 'Wallet file not specified (must request wallet RPC through /wallet/<filename> uri-path).');
}

export interface NodeRpcServerOptions<N, M> {
  node: N;
  wallets: M;
  user: string;
  password: string;
  host: string;
  port: number;
}

/**
 * Starts a node's JSON-RPC server on the generic HTTP layer; the methods named in walletMethodNames (and
 * unloadwallet without a name) resolve their wallet before running, so they fail first on a wrong or missing
 * wallet, as in Core.
 */
export function startNodeRpcServer<N, M extends LoadedWallets<W>, W>(
  options: NodeRpcServerOptions<N, M>,
  methods: MethodTable<NodeCallContext<N, M, W>>,
  walletMethodNames: ReadonlySet<string>,
  observed?: JsonRpcServerOptions<unknown>['observed'],
): Promise<{ server: Server; url: string }> {
  return startJsonRpcServer<NodeCallContext<N, M, W>>({
    methods,
    context: (uriWallet) => ({
      node: options.node,
      wallets: options.wallets,
      wallet: () => resolveWallet(options.wallets, uriWallet),
    }),
    beforeRun: (method, args, ctx) => {
      if (walletMethodNames.has(method) && !(method === 'unloadwallet' && args[0] !== undefined)) ctx.wallet();
    },
    user: options.user,
    password: options.password,
    host: options.host,
    port: options.port,
    observed,
  });
}

export interface WalletManagementOptions {
  /** The RPC_WALLET_ERROR text for createwallet's unsupported options (no watch-only, blank or encrypted wallets). */
  plainWalletsOnly: string;
  /** Whether results carry elementsd's empty `warning` field. */
  warning: boolean;
}

/** createwallet, loadwallet, unloadwallet, listwallets and listwalletdir over a node's wallet manager. */
export function walletManagementMethods<W extends { name: string }, C extends { wallets: WalletCatalog<W>; wallet(): W }>(
  options: WalletManagementOptions,
): MethodTable<C> {
  const warning = options.warning ? { warning: '' } : {};
  return {
    createwallet: {
      params: [
        { name: 'wallet_name', type: 'string', required: true },
        { name: 'disable_private_keys', type: 'bool' },
        { name: 'blank', type: 'bool' },
        { name: 'passphrase', type: 'string' },
        { name: 'avoid_reuse', type: 'bool' },
        { name: 'descriptors', type: 'bool' },
        { name: 'load_on_startup', type: 'bool' },
        { name: 'external_signer', type: 'bool' },
      ],
      run: ([name, disablePrivateKeys, blank, passphrase], { wallets }) => {
        if (disablePrivateKeys || blank || passphrase) throw new RpcFailure(RPC_WALLET_ERROR, options.plainWalletsOnly);
        return { name: wallets.create(name as string).name, ...warning };
      },
    },

    loadwallet: {
      params: [
        { name: 'filename', type: 'string', required: true },
        { name: 'load_on_startup', type: 'bool' },
      ],
      run: ([name], { wallets }) => ({ name: wallets.load(name as string).name, ...warning }),
    },

    unloadwallet: {
      params: [
        { name: 'wallet_name', type: 'string' },
        { name: 'load_on_startup', type: 'bool' },
      ],
      run: ([name], ctx) => {
        ctx.wallets.unload(name !== undefined ? (name as string) : ctx.wallet().name);
        return { ...warning };
      },
    },

    listwallets: { params: [], run: (_args, { wallets }) => wallets.names() },

    listwalletdir: {
      params: [],
      run: (_args, { wallets }) => ({ wallets: wallets.allNames().map((name) => ({ name })) }),
    },
  };
}

/** listunspent's minconf and maxconf (defaults 1 and 9999999). */
export function confRangeArgs(minconf: unknown, maxconf: unknown): { min: number; max: number } {
  return {
    min: minconf === undefined ? 1 : integerArg(minconf, 'minconf'),
    max: maxconf === undefined ? 9_999_999 : integerArg(maxconf, 'maxconf'),
  };
}

/** listunspent's addresses: the scripts (hex) they pay to, each once; scriptHex throws the chain's invalid-address failure. */
export function addressFilterArg(addresses: unknown, scriptHex: (address: string) => string): Set<string> | undefined {
  if (addresses === undefined) return undefined;
  const filter = new Set<string>();
  for (const address of addresses as unknown[]) {
    const script = scriptHex(String(address));
    if (filter.has(script)) throw new RpcFailure(RPC_INVALID_PARAMETER, `Invalid parameter, duplicated address: ${String(address)}`);
    filter.add(script);
  }
  return filter;
}

/** listunspent's order: most confirmations first, then by outpoint. */
export function byConfirmationsThenOutpoint(a: { confirmations: number; txid: string; vout: number }, b: { confirmations: number; txid: string; vout: number }): number {
  return b.confirmations - a.confirmations || a.txid.localeCompare(b.txid) || a.vout - b.vout;
}
