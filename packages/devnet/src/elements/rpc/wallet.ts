// elementsd's wallet RPCs on a loaded wallet: addresses and blinding keys, balances per asset (L-BTC shown by its
// label "bitcoin", others by id), sendtoaddress in any asset (fee in L-BTC) and unblindrawtransaction.
import { Transaction } from 'liquidjs-lib';
import { satToBtc } from '../../bitcoin/amount.ts';
import { isHex, toHex } from '../../bitcoin/bytes.ts';
import {
  RpcFailure, RPC_DESERIALIZATION_ERROR, RPC_INVALID_ADDRESS_OR_KEY, RPC_TYPE_ERROR,
} from '../../bitcoin/rpc/errors.ts';
import { amountArg, integerArg } from '../../bitcoin/rpc/params.ts';
import { MIN_RELAY_SAT_PER_KVB } from '../accept.ts';
import { decodeAddress, type DecodedAddress } from '../wallet/address.ts';
import { ELEMENTS_ADDRESS_KINDS, type ElementsAddressKind } from '../wallet/keys.ts';
import { payTo } from '../wallet/pay.ts';
import { unblindTransaction } from '../wallet/views.ts';
import { TxRejected } from '../node.ts';
import { assetAmounts, type AssetBalances } from './amounts.ts';
import { assetFromString, assetLabelArg } from './assets.ts';
import type { ElementsMethodTable } from './context.ts';

/** An address argument; elementsd's texts: getaddressinfo "Invalid address", others "Invalid Bitcoin address…". */
function addressArg(value: unknown, message: string): DecodedAddress {
  try {
    return decodeAddress(String(value));
  } catch {
    throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, message);
  }
}

/** elementsd's output types: "blech32" is an alias of "bech32"; legacy and p2sh-segwit are not issued here. */
function addressKind(value: unknown): ElementsAddressKind {
  if (value === undefined || value === 'blech32') return 'bech32';
  if (ELEMENTS_ADDRESS_KINDS.includes(value as ElementsAddressKind)) return value as ElementsAddressKind;
  if (value === 'legacy' || value === 'p2sh-segwit') {
    throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, `This devnet issues only bech32 (blech32) and bech32m addresses, not '${value}'`);
  }
  throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, `Unknown address type '${String(value)}'`);
}

export const walletMethods: ElementsMethodTable = {
  getnewaddress: {
    params: [
      { name: 'label', type: 'string' },
      { name: 'address_type', type: 'string' },
    ],
    run: ([, type], ctx) => ctx.wallet().newAddress(addressKind(type), false).confidential,
  },

  getrawchangeaddress: {
    params: [{ name: 'address_type', type: 'string' }],
    run: ([type], ctx) => ctx.wallet().newAddress(addressKind(type), true).confidential,
  },

  getaddressinfo: {
    params: [{ name: 'address', type: 'string', required: true }],
    run: ([address], ctx) => {
      addressArg(address, 'Invalid address');
      return ctx.wallet().inner.addressInfo(address as string);
    },
  },

  dumpblindingkey: {
    params: [{ name: 'address', type: 'string', required: true }],
    // As elementsd: the key is derived from the master blinding key for any script; a CT address must carry it.
    run: ([address], ctx) => {
      const decoded = addressArg(address, 'Invalid Bitcoin address');
      const key = ctx.wallet().inner.keys.blindingKey(decoded.script);
      if (decoded.blindingKey && toHex(decoded.blindingKey) !== toHex(key.publicKey)) {
        throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, 'CT address blinding key does not match the blinding key in wallet');
      }
      return toHex(key.privateKey);
    },
  },

  getbalances: {
    params: [],
    run: (_args, ctx) => {
      const balances = ctx.wallet().balances();
      return {
        mine: {
          trusted: assetAmounts(balances.trusted),
          untrusted_pending: assetAmounts(balances.untrusted),
          immature: assetAmounts(balances.immature),
        },
        lastprocessedblock: { hash: ctx.node.tip.hash, height: ctx.node.height },
      };
    },
  },

  getwalletinfo: {
    params: [],
    run: (_args, ctx) => {
      const wallet = ctx.wallet();
      const balances = wallet.balances();
      return {
        walletname: wallet.name,
        walletversion: 169900,
        format: 'sqlite',
        balance: assetAmounts(balances.trusted),
        unconfirmed_balance: assetAmounts(balances.untrusted),
        immature_balance: assetAmounts(balances.immature),
        txcount: wallet.txids.size,
        keypoolsize: 1000,
        keypoolsize_hd_internal: 1000,
        paytxfee: satToBtc(0n),
        private_keys_enabled: true,
        avoid_reuse: false,
        scanning: false,
        descriptors: true,
        external_signer: false,
        lastprocessedblock: { hash: ctx.node.tip.hash, height: ctx.node.height },
      };
    },
  },

  getbalance: {
    params: [
      { name: 'dummy', type: 'string' },
      { name: 'minconf', type: 'number' },
      { name: 'include_watchonly', type: 'bool' },
      { name: 'avoid_reuse', type: 'bool' },
      { name: 'assetlabel', type: 'string' },
    ],
    run: ([, minconf, , , assetlabel], ctx) => {
      const min = minconf === undefined ? 0 : integerArg(minconf, 'minconf');
      const sums: AssetBalances = new Map();
      for (const coin of ctx.wallet().unspent()) {
        if (coin.state !== 'trusted' || coin.confirmations < min) continue;
        sums.set(coin.unblinded.asset, (sums.get(coin.unblinded.asset) ?? 0n) + coin.unblinded.value);
      }
      // AmountMapToUniv: one asset's amount when named (0 for an unknown label), else every asset's.
      if (assetlabel !== undefined && assetlabel !== '') {
        const asset = assetFromString(assetlabel as string);
        return satToBtc((asset ? sums.get(asset) : undefined) ?? 0n);
      }
      return assetAmounts(sums);
    },
  },

  sendtoaddress: {
    params: [
      { name: 'address', type: 'string', required: true },
      { name: 'amount', type: 'amount', required: true },
      { name: 'comment', type: 'string' },
      { name: 'comment_to', type: 'string' },
      { name: 'subtractfeefromamount', type: 'bool' },
      { name: 'replaceable', type: 'bool' },
      { name: 'conf_target', type: 'number' },
      { name: 'estimate_mode', type: 'string' },
      { name: 'avoid_reuse', type: 'bool' },
      { name: 'assetlabel', type: 'string' },
      { name: 'ignoreblindfail', type: 'bool' },
      { name: 'fee_rate', type: 'amount' },
      { name: 'verbose', type: 'bool' },
    ],
    run: async ([address, amount, , , subtract, , , , , assetlabel, , feeRate, verbose], ctx) => {
      const wallet = ctx.wallet();
      const to = addressArg(address, `Invalid Bitcoin address: ${String(address)}`);
      const sat = amountArg(amount);
      if (sat <= 0n) throw new RpcFailure(RPC_TYPE_ERROR, 'Invalid amount for send');
      const asset = assetLabelArg(assetlabel);
      // fee_rate is sat/vB; amountArg reads it with 8 decimals.
      const satPerKvB = feeRate === undefined ? MIN_RELAY_SAT_PER_KVB : (amountArg(feeRate) * 1000n) / 100_000_000n;
      try {
        const txid = await payTo(ctx.node, wallet, { to, amount: sat, asset, subtractFee: subtract === true }, satPerKvB);
        return verbose ? { txid, fee_reason: feeRate === undefined ? 'Fallback fee' : 'User-specified feerate' } : txid;
      } catch (error) {
        if (error instanceof TxRejected) throw new RpcFailure(error.code, error.message);
        throw error;
      }
    },
  },

  unblindrawtransaction: {
    params: [{ name: 'hex', type: 'string', required: true }],
    run: ([hex], ctx) => {
      let tx: Transaction;
      try {
        if (!isHex(hex as string)) throw new Error('not hex');
        tx = Transaction.fromHex(hex as string);
      } catch {
        throw new RpcFailure(RPC_DESERIALIZATION_ERROR, 'TX decode failed');
      }
      const wallet = ctx.wallet();
      return { hex: unblindTransaction(wallet.zkp, tx, wallet.inner.blindingKeyOf).toHex() };
    },
  },
};
