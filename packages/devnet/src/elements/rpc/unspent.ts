// elementsd's listunspent: the wallet's coins with their opened amount and asset, blinders and commitments, filtered
// by confirmations, addresses and query_options as elementsd filters them.
import { satToBtc } from '../../bitcoin/amount.ts';
import { toHex } from '../../bitcoin/bytes.ts';
import { RpcFailure, RPC_INVALID_ADDRESS_OR_KEY } from '../../bitcoin/rpc/errors.ts';
import { amountArg, integerArg } from '../../bitcoin/rpc/params.ts';
import { addressFilterArg, byConfirmationsThenOutpoint, confRangeArgs } from '../../common/wallet-rpc.ts';
import { decodeAddress } from '../wallet/address.ts';
import { POLICY_ASSET } from '../wallet/network.ts';
import { unspentBlindingFields } from '../wallet/views.ts';
import type { ElementsMethodTable } from './context.ts';

/** listunspent's query_options: minimumAmount, maximumAmount, maximumCount, asset (id or "bitcoin"), immature. */
function queryOptions(value: unknown): { min: bigint; max?: bigint; count?: number; asset?: string; immature: boolean } {
  const query = (value ?? {}) as Record<string, unknown>;
  const count = query.maximumCount === undefined ? undefined : integerArg(query.maximumCount, 'maximumCount');
  const asset = query.asset === undefined || query.asset === '' ? undefined : String(query.asset);
  return {
    min: query.minimumAmount === undefined ? 0n : amountArg(query.minimumAmount),
    max: query.maximumAmount === undefined ? undefined : amountArg(query.maximumAmount),
    count: count !== undefined && count > 0 ? count : undefined,
    asset: asset === 'bitcoin' ? POLICY_ASSET : asset,
    immature: query.include_immature_coinbase === true,
  };
}

export const unspentMethods: ElementsMethodTable = {
  listunspent: {
    params: [
      { name: 'minconf', type: 'number' },
      { name: 'maxconf', type: 'number' },
      { name: 'addresses', type: 'array' },
      { name: 'include_unsafe', type: 'bool' },
      { name: 'query_options', type: 'object' },
    ],
    run: ([minconf, maxconf, addresses, includeUnsafe, options], ctx) => {
      const { min, max } = confRangeArgs(minconf, maxconf);
      const filter = addressFilterArg(addresses, (address) => {
        try {
          return toHex(decodeAddress(address).script);
        } catch {
          throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, `Invalid Bitcoin address: ${address}`);
        }
      });
      const query = queryOptions(options);
      const coins = ctx
        .wallet()
        .unspent()
        .filter((c) => (c.state !== 'immature' || query.immature) && c.confirmations >= min && c.confirmations <= max)
        .filter((c) => includeUnsafe !== false || c.state === 'trusted')
        .filter((c) => !filter || filter.size === 0 || filter.has(toHex(c.address.script)))
        .filter((c) => query.asset === undefined || c.unblinded.asset === query.asset)
        .filter((c) => c.unblinded.value >= query.min && (query.max === undefined || c.unblinded.value <= query.max))
        .sort(byConfirmationsThenOutpoint);
      return coins
        .slice(0, query.count)
        .map((c) => ({
          txid: c.txid,
          vout: c.vout,
          address: c.address.unconfidential, // elementsd shows the script's (unblinded) destination
          ...(c.address.branch === 0 ? { label: '' } : {}),
          scriptPubKey: toHex(c.address.script),
          ...unspentBlindingFields(c.output, c.unblinded),
          amount: satToBtc(c.unblinded.value), // written as elementsd writes amounts (8 decimals)
          confirmations: c.confirmations,
          spendable: true,
          solvable: true,
          safe: c.state === 'trusted',
        }));
    },
  },

};
