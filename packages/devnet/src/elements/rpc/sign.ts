// elementsd's signrawtransactionwithwallet: the wallet signs each input that spends one of its own P2WPKH coins
// (SIGHASH_ALL over Elements' segwit v0 sighash, which commits to the coin's value commitment), leaves the other
// inputs as they are, and answers {hex, complete[, errors]} as elementsd does. A service that adds a coin of its
// wallet to a transaction it builds with someone else (an asset rescue's L-BTC fee input) signs it this way.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { Transaction, payments } from 'liquidjs-lib';
import { toHex } from '../../bitcoin/bytes.ts';
import { RpcFailure, RPC_INVALID_PARAMETER } from '../../bitcoin/rpc/errors.ts';
import { decodeHexTx } from '../../common/rawtx-rpc.ts';
import type { ElementsMethodTable } from './context.ts';

const isP2wpkh = (script: Uint8Array): boolean => script.length === 22 && script[0] === 0x00 && script[1] === 0x14;

export const signMethods: ElementsMethodTable = {
  signrawtransactionwithwallet: {
    params: [
      { name: 'hexstring', type: 'string', required: true },
      { name: 'prevtxs', type: 'array' },
      { name: 'sighashtype', type: 'string' },
    ],
    run: ([hexArg, prevtxs, sighashtype], ctx) => {
      const tx = decodeHexTx(hexArg, 'TX decode failed', (hex) => Transaction.fromHex(hex));
      if (Array.isArray(prevtxs) && prevtxs.length > 0) throw new RpcFailure(RPC_INVALID_PARAMETER, 'This devnet signs only coins it knows: prevtxs are not supported');
      if (sighashtype !== undefined && sighashtype !== 'ALL' && sighashtype !== 'DEFAULT') throw new RpcFailure(RPC_INVALID_PARAMETER, 'Invalid sighash param');
      const wallet = ctx.wallet();
      const errors: Record<string, unknown>[] = [];
      tx.ins.forEach((input, index) => {
        const txid = toHex(Uint8Array.from(input.hash).reverse());
        const vout = input.index;
        const fail = (error: string) =>
          errors.push({ txid, vout, witness: input.witness.map((item) => item.toString('hex')), scriptSig: input.script.toString('hex'), sequence: input.sequence, error });
        const coin = wallet.ownOutput(txid, vout);
        if (coin === undefined || !isP2wpkh(coin.output.script)) {
          // Not ours: elementsd keeps a witness someone else made; an empty one is an input nobody signed.
          if (input.witness.length === 0) fail(ctx.node.unspent(txid, vout, true) ? 'Unable to sign input, invalid stack size (possibly missing key)' : 'Input not found or already spent');
          return;
        }
        if (!ctx.node.unspent(txid, vout, true)) return void fail('Input not found or already spent');
        const scriptCode = payments.p2pkh({ pubkey: Buffer.from(coin.address.key.publicKey) }).output!;
        const sighash = tx.hashForWitnessV0(index, scriptCode, coin.output.value, Transaction.SIGHASH_ALL);
        const der = secp256k1.sign(sighash, coin.address.key.privateKey, { prehash: false, format: 'der' });
        input.witness = [Buffer.concat([der, Buffer.of(Transaction.SIGHASH_ALL)]), Buffer.from(coin.address.key.publicKey)];
      });
      return { hex: tx.toHex(), complete: errors.length === 0, ...(errors.length > 0 && { errors }) };
    },
  },
};
