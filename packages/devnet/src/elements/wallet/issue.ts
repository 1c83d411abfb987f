// issueasset's spend: a new asset (and reissuance tokens) issued on the first input of a transaction whose L-BTC
// coins pay the fee, each issued amount paid to a new confidential receive address of the wallet, as elementsd's
// SendGenerationTransaction does; answered with elementsd's ids.
import { RpcFailure, RPC_WALLET_ERROR, RPC_WALLET_INSUFFICIENT_FUNDS } from '../../bitcoin/rpc/errors.ts';
import type { ElementsNode } from '../node.ts';
import { prevout, wrapTx } from '../tx.ts';
import { issuedIds, type IssuanceRequest, type IssuedIds } from './issuance.ts';
import { POLICY_ASSET } from './network.ts';
import type { NodeWallet } from './node-wallet.ts';
import { pickCoins, serialized, settleFee } from './pay.ts';

export interface IssueOrder {
  assetAmount: bigint; // sat
  tokenAmount: bigint; // sat
  blind: boolean;
  contractHash?: Uint8Array; // internal byte order
}

export interface IssueResult extends IssuedIds {
  txid: string;
  vin: number; // the issuing input: always 0, as elementsd's wallet issues
}

export function issueAsset(node: ElementsNode, wallet: NodeWallet, order: IssueOrder, satPerKvB: bigint): Promise<IssueResult> {
  return serialized(wallet, async () => {
    const assetTo = order.assetAmount > 0n ? wallet.newAddress('bech32', false) : undefined;
    const tokenTo = order.tokenAmount > 0n ? wallet.newAddress('bech32', false) : undefined;
    const change = wallet.newAddress('bech32', true);
    const destination = (address: typeof change | undefined) =>
      address && { script: address.script, blindingKey: address.blinding.publicKey };
    const issuance: IssuanceRequest = {
      ...order,
      assetTo: destination(assetTo),
      tokenTo: destination(tokenTo),
      blindingPrivateKey: (assetTo ?? tokenTo ?? change).blinding.privateKey,
    };
    let signed;
    try {
      signed = settleFee(node, wallet, satPerKvB, (fee) => ({
        coins: pickCoins(wallet, new Map([[POLICY_ASSET, fee]])),
        recipients: [],
        fee,
        change: destination(change),
        issuance,
      }));
    } catch (error) {
      // elementsd's issueasset reports the wallet's failure to fund it as -4.
      if (error instanceof RpcFailure && error.code === RPC_WALLET_INSUFFICIENT_FUNDS) throw new RpcFailure(RPC_WALLET_ERROR, error.message);
      throw error;
    }
    const txid = await node.acceptTransaction(wrapTx(signed.tx));
    return { txid, vin: 0, ...issuedIds(prevout(signed.tx, 0), issuance) };
  });
}
