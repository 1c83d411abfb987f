// The chain RPCs whose logic is the same on either devnet node (getblockcount, getblockhash, getblockheader, getblock,
// getrawmempool, invalidateblock, generatetoaddress, generateblock, estimatesmartfee's checks), typed over the node's small surface.
import { RpcFailure, RPC_DESERIALIZATION_ERROR, RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, RPC_MISC_ERROR } from '../bitcoin/rpc/errors.ts';
import { integerArg, parseHash, verbosityArg, type MethodTable } from '../bitcoin/rpc/params.ts';

/** What the shared chain RPCs need of a node. */
export interface ChainNode<M> {
  readonly height: number;
  readonly tip: { hash: string };
  blockAt(height: number): { hash: string } | undefined;
  block(hash: string): { hash: string; height: number } | undefined;
  readonly mempool: { readonly entries: ReadonlyMap<string, M>; readonly size: number; get(txid: string): M | undefined };
  invalidateBlock(hash: string): unknown;
}

/** The block a hash argument names, or Core's "Block not found". */
export function blockOrFail<E>(node: { block(hash: string): E | undefined }, value: unknown, name: string): E {
  const entry = node.block(parseHash(value, name));
  if (!entry) throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, 'Block not found');
  return entry;
}

/** getblockcount, getbestblockhash, getblockhash, getrawmempool and getmempoolentry (entries by entryJson), invalidateblock. */
export function chainMethods<M extends { tx: { txid: string } }, C extends { node: ChainNode<M> }>(
  entryJson: (node: C['node'], entry: M) => unknown,
): MethodTable<C> {
  return {
    getblockcount: { params: [], run: (_args, { node }) => node.height },

    getbestblockhash: { params: [], run: (_args, { node }) => node.tip.hash },

    getblockhash: {
      params: [{ name: 'height', type: 'number', required: true }],
      run: ([height], { node }) => {
        const h = integerArg(height, 'height');
        if (h < 0 || h > node.height) throw new RpcFailure(RPC_INVALID_PARAMETER, 'Block height out of range');
        return node.blockAt(h)!.hash;
      },
    },

    getrawmempool: {
      params: [
        { name: 'verbose', type: 'bool' },
        { name: 'mempool_sequence', type: 'bool' },
      ],
      run: ([verbose, sequence], { node }) => {
        if (verbose && sequence) throw new RpcFailure(RPC_INVALID_PARAMETER, 'Verbose results cannot contain mempool sequence values.');
        const txids = [...node.mempool.entries.keys()];
        if (sequence) return { txids, mempool_sequence: node.mempool.size };
        if (!verbose) return txids;
        const result: Record<string, unknown> = {};
        for (const entry of node.mempool.entries.values()) result[entry.tx.txid] = entryJson(node, entry);
        return result;
      },
    },

    getmempoolentry: {
      params: [{ name: 'txid', type: 'string', required: true }],
      run: ([txid], { node }) => {
        const entry = node.mempool.get(parseHash(txid, 'parameter 1'));
        if (!entry) throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, 'Transaction not in mempool');
        return entryJson(node, entry);
      },
    },

    invalidateblock: {
      params: [{ name: 'blockhash', type: 'string', required: true }],
      run: async ([hash], { node }) => {
        const entry = blockOrFail(node, hash, 'blockhash');
        if (entry.height === 0) throw new RpcFailure(RPC_MISC_ERROR, 'Cannot invalidate the genesis block');
        await node.invalidateBlock(entry.hash);
        return null;
      },
    },
  };
}

/** gettxout: the lookup and answer frame are Core's on both nodes; each chain writes its output's amount and script. */
export function txOutMethod<O, C extends { node: { tip: { hash: string }; unspent(txid: string, vout: number, includeMempool: boolean): { coin: O & { coinbase: boolean }; confirmations: number } | undefined } }>(
  outputJson: (coin: O) => Record<string, unknown>,
): MethodTable<C> {
  return {
    gettxout: {
      params: [
        { name: 'txid', type: 'string', required: true },
        { name: 'n', type: 'number', required: true },
        { name: 'include_mempool', type: 'bool' },
      ],
      run: ([txid, n, includeMempool], { node }) => {
        const found = node.unspent(parseHash(txid, 'txid'), integerArg(n, 'n'), includeMempool !== false);
        if (!found) return null;
        return { bestblock: node.tip.hash, confirmations: found.confirmations, ...outputJson(found.coin), coinbase: found.coin.coinbase };
      },
    },
  };
}

/** The output script of an address, or Core's invalid-address failure with the method's own text. */
function scriptOf<S>(addressToScript: (address: string) => S, InvalidAddress: abstract new (...args: never[]) => Error, address: string, message: string): S {
  try {
    return addressToScript(address);
  } catch (error) {
    if (error instanceof InvalidAddress) throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, message);
    throw error;
  }
}

/** generatetoaddress over the chain's address decoder (failing with InvalidAddress) and the node's miner. */
export function generateToAddressMethod<S, C extends { node: { mine(count: number, script: S): unknown } }>(
  addressToScript: (address: string) => S,
  InvalidAddress: abstract new (...args: never[]) => Error,
): MethodTable<C> {
  return {
    generatetoaddress: {
      params: [
        { name: 'nblocks', type: 'number', required: true },
        { name: 'address', type: 'string', required: true },
        { name: 'maxtries', type: 'number' },
      ],
      run: async ([nblocks, address], { node }) => {
        const script = scriptOf(addressToScript, InvalidAddress, address as string, 'Error: Invalid address');
        const count = integerArg(nblocks, 'nblocks');
        return count > 0 ? await node.mine(count, script) : [];
      },
    },
  };
}

/**
 * Core's generateblock: a block with exactly the transactions given (mempool txids, or raw transactions that are
 * in the mempool; the devnet mines nothing that did not pass its mempool acceptance), so a transaction can be kept
 * out of blocks while the chain moves on. `txidOf` reads a raw transaction's txid (throwing when it cannot).
 */
export function generateBlockMethod<S, C extends { node: { mineWith(script: S, txids: string[]): string | Promise<string> } }>(
  addressToScript: (address: string) => S,
  InvalidAddress: abstract new (...args: never[]) => Error,
  txidOf: (raw: string) => string,
): MethodTable<C> {
  return {
    generateblock: {
      params: [
        { name: 'output', type: 'string', required: true },
        { name: 'transactions', type: 'array', required: true },
        { name: 'submit', type: 'bool' },
      ],
      run: async ([output, transactions, submit], { node }) => {
        if (submit === false) throw new RpcFailure(RPC_MISC_ERROR, 'devnet-unsupported: generateblock always submits');
        const script = scriptOf(addressToScript, InvalidAddress, output as string, 'Error: Invalid address or descriptor');
        const txids = (transactions as unknown[]).map((item) => {
          const text = String(item);
          if (/^[0-9a-fA-F]{64}$/.test(text)) return text;
          try {
            return txidOf(text);
          } catch {
            throw new RpcFailure(RPC_DESERIALIZATION_ERROR, `Transaction decode failed for ${text}. Make sure the tx has at least one input.`);
          }
        });
        try {
          return { hash: await node.mineWith(script, txids) };
        } catch (error) {
          throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, (error as Error).message);
        }
      },
    },
  };
}

/** estimatesmartfee's arguments checked as Core does; the confirmation target. */
export function estimateSmartFeeArgs(target: unknown, mode: unknown, maxConfTarget: number): number {
  const confTarget = integerArg(target, 'conf_target');
  if (confTarget < 1 || confTarget > maxConfTarget) {
    throw new RpcFailure(RPC_INVALID_PARAMETER, `Invalid conf_target, must be between 1 and ${maxConfTarget}`);
  }
  if (mode !== undefined && !['unset', 'economical', 'conservative'].includes((mode as string).toLowerCase())) {
    throw new RpcFailure(RPC_INVALID_PARAMETER, 'Invalid estimate_mode parameter, must be one of: "unset", "economical", "conservative"');
  }
  return confTarget;
}

/** How a chain shows a block entry: raw header and block hex, and their JSON (getblock's level is 1 or more). */
export interface BlockViews<N, E> {
  headerHex(entry: E): string;
  headerJson(node: N, entry: E): unknown;
  blockHex(entry: E): string;
  blockJson(node: N, entry: E, level: number): unknown;
}

/** getblockheader and getblock over the chain's block views. */
export function blockMethods<E, C extends { node: { block(hash: string): E | undefined } }>(views: BlockViews<C['node'], E>): MethodTable<C> {
  return {
    getblockheader: {
      params: [
        { name: 'blockhash', type: 'string', required: true },
        { name: 'verbose', type: 'bool' },
      ],
      run: ([hash, verbose], { node }) => {
        const entry = blockOrFail(node, hash, 'hash');
        if (verbose === false) return views.headerHex(entry);
        return views.headerJson(node, entry);
      },
    },

    getblock: {
      params: [
        { name: 'blockhash', type: 'string', required: true },
        { name: 'verbosity', type: 'numOrBool' },
      ],
      run: ([hash, verbosity], { node }) => {
        const entry = blockOrFail(node, hash, 'blockhash');
        const level = verbosityArg(verbosity, 1);
        if (level <= 0) return views.blockHex(entry);
        return views.blockJson(node, entry, level);
      },
    },
  };
}
