// Wallet RPCs (Core's wallet/rpc/*.cpp): addresses, balances, coins and sending (wallet management is shared:
// common/wallet-rpc.ts).
import { satToBtc } from '../amount.ts';
import { toHex } from '../bytes.ts';
import { estimateSmartFee, FLOOR_SAT_PER_KVB } from '../fees.ts';
import { addressToScript, InvalidAddress } from '../script.ts';
import { ADDRESS_KINDS, type AddressKind } from '../wallet/keys.ts';
import { sendPayments } from '../wallet/send.ts';
import { bumpFee } from '../wallet/bump.ts';
import { sendFromInputs } from '../wallet/send-inputs.ts';
import type { Wallet } from '../wallet/wallet.ts';
import { TxRejected } from '../accept.ts';
import { addressFilterArg, byConfirmationsThenOutpoint, confRangeArgs } from '../../common/wallet-rpc.ts';
import {
  RpcFailure,
  RPC_INVALID_ADDRESS_OR_KEY,
  RPC_INVALID_PARAMETER,
  RPC_TYPE_ERROR,
  RPC_WALLET_ERROR,
} from './errors.ts';
import { amountArg, integerArg, parseHash, type MethodTable } from './params.ts';

/** Core's -txconfirmtarget default. */
const DEFAULT_CONF_TARGET = 6;
const RPC_METHOD_DEPRECATED = -32;
const RPC_WALLET_INVALID_LABEL_NAME = -11;

function addressKind(value: unknown): AddressKind {
  if (value === undefined) return 'bech32';
  if (!ADDRESS_KINDS.includes(value as AddressKind)) {
    throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, `Unknown address type '${String(value)}'`);
  }
  return value as AddressKind;
}

function labelArg(value: unknown): string {
  const label = value === undefined ? '' : String(value);
  if (label === '*') throw new RpcFailure(RPC_WALLET_INVALID_LABEL_NAME, 'Invalid label name');
  return label;
}

function recipientScript(address: string): Uint8Array {
  try {
    return addressToScript(address);
  } catch (error) {
    if (error instanceof InvalidAddress) throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, `Invalid Bitcoin address: ${address}`);
    throw error;
  }
}

function balancesJson(wallet: Wallet) {
  const balances = wallet.balances();
  return {
    trusted: satToBtc(balances.trusted),
    untrusted_pending: satToBtc(balances.untrustedPending),
    immature: satToBtc(balances.immature),
  };
}

export const walletMethods: MethodTable = {
  getwalletinfo: {
    params: [],
    run: (_args, ctx) => {
      const wallet = ctx.wallet();
      const balances = wallet.balances();
      return {
        walletname: wallet.name,
        walletversion: 169900,
        format: 'sqlite',
        balance: satToBtc(balances.trusted),
        unconfirmed_balance: satToBtc(balances.untrustedPending),
        immature_balance: satToBtc(balances.immature),
        txcount: wallet.txids.size,
        keypoolsize: 1000,
        keypoolsize_hd_internal: 1000,
        paytxfee: satToBtc(0n),
        private_keys_enabled: true,
        avoid_reuse: false,
        scanning: false,
        descriptors: true,
        external_signer: false,
        blank: false,
        lastprocessedblock: { hash: ctx.node.tip.hash, height: ctx.node.height },
      };
    },
  },

  getnewaddress: {
    params: [
      { name: 'label', type: 'string' },
      { name: 'address_type', type: 'string' },
    ],
    run: ([label, type], ctx) => ctx.wallet().newKey(addressKind(type), 0, labelArg(label)).address,
  },

  getrawchangeaddress: {
    params: [{ name: 'address_type', type: 'string' }],
    run: ([type], ctx) => ctx.wallet().newKey(addressKind(type), 1).address,
  },

  getbalance: {
    params: [
      { name: 'dummy', type: 'string' },
      { name: 'minconf', type: 'number' },
      { name: 'include_watchonly', type: 'bool' },
      { name: 'avoid_reuse', type: 'bool' },
    ],
    run: ([dummy, minconf], ctx) => {
      if (dummy !== undefined && dummy !== '*') {
        throw new RpcFailure(RPC_METHOD_DEPRECATED, 'dummy first argument must be excluded or set to "*".');
      }
      const min = minconf === undefined ? 0 : integerArg(minconf, 'minconf');
      let sum = 0n;
      for (const coin of ctx.wallet().unspent()) if (coin.state === 'trusted' && coin.confirmations >= min) sum += coin.value;
      return satToBtc(sum);
    },
  },

  getbalances: {
    params: [],
    run: (_args, ctx) => ({
      mine: balancesJson(ctx.wallet()),
      lastprocessedblock: { hash: ctx.node.tip.hash, height: ctx.node.height },
    }),
  },

  listunspent: {
    params: [
      { name: 'minconf', type: 'number' },
      { name: 'maxconf', type: 'number' },
      { name: 'addresses', type: 'array' },
      { name: 'include_unsafe', type: 'bool' },
      { name: 'query_options', type: 'object' },
    ],
    run: ([minconf, maxconf, addresses, includeUnsafe, options], ctx) => {
      const wallet = ctx.wallet();
      const { min, max } = confRangeArgs(minconf, maxconf);
      const filter = addressFilterArg(addresses, (address) => toHex(recipientScript(address)));
      const query = (options ?? {}) as Record<string, unknown>;
      const minimumAmount = query.minimumAmount === undefined ? 0n : amountArg(query.minimumAmount);
      const maximumAmount = query.maximumAmount === undefined ? undefined : amountArg(query.maximumAmount);
      const maximumCount = query.maximumCount === undefined ? undefined : integerArg(query.maximumCount, 'maximumCount');
      const coins = wallet
        .unspent()
        .filter((coin) => coin.state !== 'immature')
        .filter((coin) => coin.confirmations >= min && coin.confirmations <= max)
        .filter((coin) => includeUnsafe !== false || coin.state === 'trusted')
        .filter((coin) => !filter || filter.has(toHex(coin.script)))
        .filter((coin) => coin.value >= minimumAmount && (maximumAmount === undefined || coin.value <= maximumAmount))
        .sort(byConfirmationsThenOutpoint);
      return coins.slice(0, maximumCount && maximumCount > 0 ? maximumCount : undefined).map((coin) => ({
        txid: coin.txid,
        vout: coin.vout,
        address: coin.key.address,
        ...(coin.key.branch === 0 ? { label: coin.key.label } : {}),
        scriptPubKey: toHex(coin.script),
        amount: satToBtc(coin.value),
        confirmations: coin.confirmations,
        spendable: true,
        solvable: true,
        desc: wallet.keys.descriptor(coin.key.kind, coin.key.branch, coin.key.index, coin.key.publicKey),
        parent_descs: [],
        safe: coin.state === 'trusted',
      }));
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
      { name: 'fee_rate', type: 'amount' },
      { name: 'verbose', type: 'bool' },
    ],
    run: ([address, amount, , , subtract, replaceable, confTarget, , , feeRate, verbose], ctx) => {
      const wallet = ctx.wallet();
      const script = recipientScript(address as string);
      const sat = amountArg(amount);
      if (sat <= 0n) throw new RpcFailure(RPC_TYPE_ERROR, 'Invalid amount for send');
      if (confTarget !== undefined && feeRate !== undefined) {
        throw new RpcFailure(
          RPC_INVALID_PARAMETER,
          'Cannot specify both conf_target and fee_rate. Please provide either a confirmation target in blocks for automatic fee estimation, or an explicit fee rate.',
        );
      }
      let satPerKvB: bigint;
      let reason: string;
      if (feeRate !== undefined) {
        // fee_rate is in sat/vB; amountArg reads it with 8 decimals, i.e. in units of 1e-8 sat/vB.
        satPerKvB = (amountArg(feeRate) * 1000n) / 100_000_000n;
        reason = 'User-specified feerate';
        if (satPerKvB < BigInt(FLOOR_SAT_PER_KVB)) {
          throw new RpcFailure(
            RPC_WALLET_ERROR,
            `Fee rate (${(Number(satPerKvB) / 1000).toFixed(3)} sat/vB) is lower than the minimum fee rate setting (1.000 sat/vB)`,
          );
        }
      } else {
        const target = confTarget === undefined ? DEFAULT_CONF_TARGET : integerArg(confTarget, 'conf_target');
        satPerKvB = BigInt(estimateSmartFee(ctx.node, target).satPerKvB);
        reason = 'Estimation';
      }
      try {
        const payment = { script, amount: sat, subtractFee: subtract === true };
        const { txid } = sendPayments(ctx.node, wallet, [payment], satPerKvB, replaceable !== false);
        return verbose ? { txid, fee_reason: reason } : txid;
      } catch (error) {
        if (error instanceof TxRejected) throw new RpcFailure(error.code, error.message);
        throw error;
      }
    },
  },

  bumpfee: {
    params: [
      { name: 'txid', type: 'string', required: true },
      { name: 'options', type: 'object' },
    ],
    run: ([txid, options], ctx) => {
      const { fee_rate: feeRate, conf_target: confTarget } = (options ?? {}) as { fee_rate?: unknown; conf_target?: unknown };
      const satPerKvB = feeRateArg(ctx.node, confTarget, feeRate);
      try {
        const bumped = bumpFee(ctx.node, ctx.wallet(), parseHash(txid, 'txid'), satPerKvB);
        return { txid: bumped.txid, origfee: satToBtc(bumped.origFee), fee: satToBtc(bumped.fee), errors: [] };
      } catch (error) {
        if (error instanceof TxRejected) throw new RpcFailure(error.code, error.message);
        throw error;
      }
    },
  },

  // send (Core's wallet/rpc/spend.cpp), for paying from chosen coins: options.inputs with add_inputs false (the
  // default when inputs are given; the devnet does not add coins of its own), subtract_fee_from_outputs,
  // replaceable, fee_rate/conf_target. Broadcast (add_to_wallet true); the result is {complete, txid}.
  send: {
    params: [
      { name: 'outputs', type: 'array', required: true },
      { name: 'conf_target', type: 'number' },
      { name: 'estimate_mode', type: 'string' },
      { name: 'fee_rate', type: 'amount' },
      { name: 'options', type: 'object' },
    ],
    run: ([outputs, confTarget, , feeRate, options], ctx) => {
      const opts = (options ?? {}) as { inputs?: unknown; add_inputs?: unknown; subtract_fee_from_outputs?: unknown; replaceable?: unknown; fee_rate?: unknown; conf_target?: unknown; add_to_wallet?: unknown };
      const inputs = Array.isArray(opts.inputs) ? (opts.inputs as { txid?: unknown; vout?: unknown }[]) : [];
      if (inputs.length === 0 || opts.add_inputs === true) throw new RpcFailure(RPC_INVALID_PARAMETER, 'The devnet\'s send pays from options.inputs only (add_inputs false)');
      if (opts.add_to_wallet === false) throw new RpcFailure(RPC_INVALID_PARAMETER, 'The devnet\'s send always broadcasts (add_to_wallet true)');
      const outpoints = inputs.map((input) => {
        const vout = integerArg(input.vout, 'vout');
        if (vout < 0) throw new RpcFailure(RPC_INVALID_PARAMETER, 'Invalid parameter, vout cannot be negative');
        return { txid: parseHash(input.txid, 'txid'), vout };
      });
      const subtract = new Set(((opts.subtract_fee_from_outputs ?? []) as unknown[]).map((index) => integerArg(index, 'subtract_fee_from_outputs')));
      const payments = (outputs as Record<string, unknown>[]).flatMap((entry) => Object.entries(entry)).map(([address, amount], index) => {
        const sat = amountArg(amount);
        if (sat <= 0n) throw new RpcFailure(RPC_TYPE_ERROR, 'Invalid amount for send');
        return { script: recipientScript(address), amount: sat, subtractFee: subtract.has(index) };
      });
      const satPerKvB = feeRateArg(ctx.node, confTarget ?? opts.conf_target, feeRate ?? opts.fee_rate);
      try {
        const { txid } = sendFromInputs(ctx.node, ctx.wallet(), outpoints, payments, satPerKvB, opts.replaceable !== false);
        return { txid, complete: true };
      } catch (error) {
        if (error instanceof TxRejected) throw new RpcFailure(error.code, error.message);
        throw error;
      }
    },
  },
};

/** A fee rate from fee_rate (sat/vB) or conf_target (the estimate), in sat/kvB, refusing both at once, as Core. */
function feeRateArg(node: Parameters<typeof estimateSmartFee>[0], confTarget: unknown, feeRate: unknown): bigint {
  if (confTarget !== undefined && feeRate !== undefined) {
    throw new RpcFailure(RPC_INVALID_PARAMETER, 'Cannot specify both conf_target and fee_rate. Please provide either a confirmation target in blocks for automatic fee estimation, or an explicit fee rate.');
  }
  // fee_rate is in sat/vB; amountArg reads it with 8 decimals, i.e. in units of 1e-8 sat/vB.
  if (feeRate !== undefined) return (amountArg(feeRate) * 1000n) / 100_000_000n;
  return BigInt(estimateSmartFee(node, confTarget === undefined ? DEFAULT_CONF_TARGET : integerArg(confTarget, 'conf_target')).satPerKvB);
}
