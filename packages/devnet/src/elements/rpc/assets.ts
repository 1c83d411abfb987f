// elementsd's asset arguments and issueasset: an asset is named by its label (only the policy asset has one,
// "bitcoin", as without -assetdir) or its hex id (GetAssetFromString); issueasset issues a new asset from the wallet.
import { RpcFailure, RPC_TYPE_ERROR, RPC_WALLET_ERROR } from '../../bitcoin/rpc/errors.ts';
import { amountArg, parseHash } from '../../bitcoin/rpc/params.ts';
import { MIN_RELAY_SAT_PER_KVB } from '../accept.ts';
import { TxRejected } from '../node.ts';
import { issueAsset } from '../wallet/issue.ts';
import { POLICY_ASSET } from '../wallet/network.ts';
import type { ElementsMethodTable } from './context.ts';

/** GetAssetFromString: the label's asset, else a 64-digit hex id; undefined (elementsd's null asset) otherwise. */
export function assetFromString(text: string): string | undefined {
  if (text === 'bitcoin') return POLICY_ASSET;
  return /^[0-9a-f]{64}$/i.test(text) ? text.toLowerCase() : undefined;
}

/** sendtoaddress's assetlabel: the policy asset when absent or empty, -4 for an unknown label. */
export function assetLabelArg(value: unknown): string {
  if (value === undefined || value === '') return POLICY_ASSET;
  const asset = assetFromString(String(value));
  if (asset === undefined) throw new RpcFailure(RPC_WALLET_ERROR, `Unknown label and invalid asset hex: ${'0'.repeat(64)}`);
  return asset;
}

export const assetMethods: ElementsMethodTable = {
  issueasset: {
    params: [
      { name: 'assetamount', type: 'amount', required: true },
      { name: 'tokenamount', type: 'amount', required: true },
      { name: 'blind', type: 'bool' },
      { name: 'contract_hash', type: 'string' },
    ],
    run: async ([assetAmount, tokenAmount, blind, contractHash], ctx) => {
      const wallet = ctx.wallet();
      const order = {
        assetAmount: amountArg(assetAmount),
        tokenAmount: amountArg(tokenAmount),
        blind: blind !== false,
        // A uint256 from its hex: the bytes hashed are the reverse of the text.
        ...(contractHash === undefined ? {} : { contractHash: Buffer.from(parseHash(contractHash, 'contract_hash'), 'hex').reverse() }),
      };
      if (order.assetAmount === 0n && order.tokenAmount === 0n) {
        throw new RpcFailure(RPC_TYPE_ERROR, 'Issuance must have one non-zero component');
      }
      try {
        return await issueAsset(ctx.node, wallet, order, MIN_RELAY_SAT_PER_KVB);
      } catch (error) {
        if (error instanceof TxRejected) throw new RpcFailure(error.code, error.message);
        throw error;
      }
    },
  },
};
