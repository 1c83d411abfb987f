// elementsd's gettransaction for a wallet transaction: per-asset amount (credit - debit + fee) and fee (negative,
// only when the wallet paid it), chain position, receive details for the wallet's own outputs, and the raw hex.
import { satToBtc } from '../../bitcoin/amount.ts';
import { RpcFailure, RPC_INVALID_ADDRESS_OR_KEY } from '../../bitcoin/rpc/errors.ts';
import { parseHash } from '../../bitcoin/rpc/params.ts';
import { policyFee, prevout } from '../tx.ts';
import { POLICY_ASSET } from '../wallet/network.ts';
import { assetAmounts, type AssetBalances } from './amounts.ts';
import type { ElementsMethodTable } from './context.ts';

const add = (map: AssetBalances, asset: string, sat: bigint): void => {
  map.set(asset, (map.get(asset) ?? 0n) + sat);
};

export const transactionMethods: ElementsMethodTable = {
  gettransaction: {
    params: [
      { name: 'txid', type: 'string', required: true },
      { name: 'include_watchonly', type: 'bool' },
      { name: 'verbose', type: 'bool' },
      { name: 'assetlabel', type: 'string' },
    ],
    run: ([txidArg], ctx) => {
      const wallet = ctx.wallet();
      const txid = parseHash(txidArg, 'txid');
      const found = ctx.node.transaction(txid);
      if (!found || !wallet.txids.has(txid)) throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid or non-wallet transaction id');
      const { tx } = found.tx;
      const net: AssetBalances = new Map();
      let fromMe = false;
      tx.ins.forEach((_, i) => {
        const spent = prevout(tx, i);
        const coin = wallet.ownOutput(spent.txid, spent.vout);
        if (!coin) return;
        fromMe = true;
        add(net, coin.unblinded.asset, -coin.unblinded.value);
      });
      const coinbase = found.block !== undefined && found.block.block.txs[0].txid === txid;
      const confirmations = found.block ? ctx.node.height - found.block.height + 1 : 0;
      const details: Record<string, unknown>[] = [];
      tx.outs.forEach((_, vout) => {
        const coin = wallet.ownOutput(txid, vout);
        if (!coin) return;
        add(net, coin.unblinded.asset, coin.unblinded.value);
        const category = !coinbase ? 'receive' : confirmations >= 101 ? 'generate' : 'immature';
        details.push({
          address: coin.address.unconfidential, category, amount: satToBtc(coin.unblinded.value),
          amountblinder: Buffer.from(coin.unblinded.valueBlinder).reverse().toString('hex'), asset: coin.unblinded.asset,
          assetblinder: Buffer.from(coin.unblinded.assetBlinder).reverse().toString('hex'), vout,
          ...(coin.address.branch === 0 ? { label: '' } : {}),
        });
      });
      const fee = fromMe ? policyFee(tx) : 0n;
      if (fromMe) add(net, POLICY_ASSET, fee); // the amount leaves the fee out, as elementsd's nNet - nFee
      const time = found.block?.block.header.time ?? found.mempool!.time;
      return {
        amount: assetAmounts(net),
        ...(fromMe ? { fee: assetAmounts(new Map([[POLICY_ASSET, -fee]])) } : {}),
        confirmations,
        ...(coinbase ? { generated: true } : {}),
        ...(found.block
          ? { blockhash: found.block.hash, blockheight: found.block.height, blockindex: found.block.block.txs.findIndex((t) => t.txid === txid), blocktime: time }
          : { trusted: wallet.isTrusted(txid) }),
        txid,
        wtxid: found.tx.wtxid,
        walletconflicts: [],
        time,
        timereceived: time,
        'bip125-replaceable': 'no',
        details,
        hex: found.tx.raw.toString('hex'),
        lastprocessedblock: { hash: ctx.node.tip.hash, height: ctx.node.height },
      };
    },
  },
};
