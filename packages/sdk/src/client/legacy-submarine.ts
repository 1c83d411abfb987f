// v1 (legacy) submarine swaps for the client, as integrations that still speak API v1 make them: POST /createswap
// with our refund key, checked before a coin moves — the redeem script is boltz-core's swapScript of the invoice's
// hash, the service's claim key (read from the script), our refund key and the answered timeout; the address pays
// that script (P2SH-nested P2WSH on Bitcoin, P2WSH behind a confidential address blinded to the returned key on
// Liquid); the amount within the v1 pair's rate and fees — and its refund file, in the spec's format (id, currency,
// redeemScript, privateKey, timeoutBlockHeight, and blindingKey on Liquid), is written before the swap is returned.
// A legacy swap has no key path: the service claims through the script, and the refund file refunds after the
// timeout (client.refundFromFile) with or without the service.
import { Script } from '@scure/btc-signer';
import { swapScript } from 'boltz-core';
import type { V1CreateSubmarineResponse, V1PairBody } from '../protocol/index.ts';
import { decodeBolt11 } from '../lightning/bolt11/decode.ts';
import { legacyOutputScripts } from '../chains/bitcoin/spends.ts';
import type { ServiceApi } from './api.ts';
import { swapChain } from './chains/index.ts';
import { VerificationError } from './errors.ts';
import { equalBytes, fromHex, keyPairOf, toHex, type KeyPair } from './keys.ts';
import type { NetworkName } from './network.ts';
import type { RefundFile } from './refund-file.ts';
import { check, checkInvoiceNetwork, checkPaymentUri, checkTimeout, guard, percentOf, ROUNDING_SLACK, SWAP_ID, type TimeoutPolicy } from './verify.ts';

export interface LegacySubmarine {
  id: string;
  currency: string;
  invoice: string;
  invoiceAmount: number;
  /** What to send to `address`, sat. */
  expectedAmount: number;
  address: string;
  redeemScript: string;
  acceptZeroConf: boolean;
  bip21?: string;
  timeoutBlockHeight: number;
  /** The refund file's content: everything a refund after the timeout needs. */
  refundFile: RefundFile;
  /** Where the refund file was saved (.json and its .png QR code), with a store. */
  refundFiles?: { json: string; png: string };
}

export interface LegacySubmarineRequest {
  api: ServiceApi;
  invoice: string;
  currency: string;
  key: KeyPair;
  network: NetworkName;
  height: number;
  policy?: TimeoutPolicy;
}

/** The most a v1 submarine lockup may cost for an invoice, by the v1 pair's rate and fees (percentageSwapIn). */
function maximalLockup(invoiceAmount: number, pair: V1PairBody): number {
  const converted = Math.ceil(invoiceAmount / pair.rate);
  return converted + percentOf(converted, pair.fees.percentageSwapIn) + pair.fees.minerFees.baseAsset.normal + ROUNDING_SLACK;
}

/** The answer's redeem script is the one for these terms, whatever claim key the service put in its place. */
function checkRedeemScript(answer: V1CreateSubmarineResponse, preimageHash: Uint8Array, key: KeyPair, timeout: number): Uint8Array {
  const given = guard(() => fromHex(answer.redeemScript, 'redeemScript'));
  const serviceKey = guard(() => Script.decode(given)[4]);
  check(serviceKey instanceof Uint8Array && serviceKey.length === 33, 'the redeem script has no service claim key where swapScript has it');
  const expected = swapScript(preimageHash, serviceKey, key.publicKey, timeout);
  check(
    equalBytes(given, expected),
    `the redeem script is not swapScript of the invoice's hash, the service key, our refund key and timeout ${timeout}: ${answer.redeemScript}`,
  );
  return given;
}

/** The address pays the redeem script: P2SH-P2WSH on Bitcoin; P2WSH blinded to the answer's blindingKey on Liquid. */
function checkAddress(answer: V1CreateSubmarineResponse, currency: string, redeemScript: Uint8Array, network: NetworkName): KeyPair | undefined {
  const chain = swapChain(currency);
  const scripts = legacyOutputScripts(redeemScript);
  const expected = chain.confidential ? scripts.p2wsh : scripts['p2sh-p2wsh'];
  const decoded = guard(() => chain.decodeAddress(answer.address, network));
  check(equalBytes(decoded.script, expected), `the address ${answer.address} does not pay the redeem script (${toHex(expected)} expected)`);
  if (!chain.confidential) return undefined;
  const blinding = guard(() => keyPairOf(fromHex(answer.blindingKey, 'blindingKey', 32)));
  check(
    decoded.blindingPublicKey !== undefined && equalBytes(decoded.blindingPublicKey, blinding.publicKey),
    `the address ${answer.address} is not blinded to the blindingKey the service returned`,
  );
  return blinding;
}

export async function createLegacySubmarine(request: LegacySubmarineRequest): Promise<LegacySubmarine> {
  const { api, currency, key, network } = request;
  const invoice = guard(() => decodeBolt11(request.invoice));
  checkInvoiceNetwork(invoice, network);
  check(invoice.amountMsat !== undefined && invoice.amountMsat > 0n, 'the invoice has no amount');
  const pairId = `${currency}/BTC`;
  const pairs = await api.request<{ pairs: Record<string, V1PairBody> }>('GET', '/getpairs');
  const pair = pairs.pairs[pairId];
  if (pair === undefined) throw new VerificationError(`the service has no v1 pair ${pairId}`);
  const answer = await api.request<V1CreateSubmarineResponse>('POST', '/createswap', {
    type: 'submarine',
    pairId,
    orderSide: 'sell',
    invoice: request.invoice,
    refundPublicKey: toHex(key.publicKey),
    pairHash: pair.hash,
  });
  check(typeof answer.id === 'string' && SWAP_ID.test(answer.id), `the swap id ${JSON.stringify(answer.id)} is not an id`);
  const timeout = checkTimeout(answer.timeoutBlockHeight, request.height, request.policy ?? { minBlocks: 12, maxBlocks: 5000 });
  const redeemScript = checkRedeemScript(answer, fromHex(invoice.paymentHash, 'paymentHash', 32), key, timeout);
  const blinding = checkAddress(answer, currency, redeemScript, network);
  const invoiceAmount = Number((invoice.amountMsat! + 999n) / 1000n);
  const expectedAmount = answer.expectedAmount;
  check(Number.isSafeInteger(expectedAmount) && expectedAmount! > 0, `expectedAmount is not a positive integer: ${JSON.stringify(expectedAmount)}`);
  const maximal = maximalLockup(invoiceAmount, pair);
  check(expectedAmount! <= maximal, `expectedAmount ${expectedAmount} is more than the invoice's ${invoiceAmount} sat and the v1 pair's fees allow (${maximal})`);
  if (answer.bip21 !== undefined) checkPaymentUri(swapChain(currency), answer.bip21, answer.address, expectedAmount!, network);
  const refundFile: RefundFile = {
    id: answer.id,
    currency,
    redeemScript: toHex(redeemScript),
    privateKey: toHex(key.privateKey),
    timeoutBlockHeight: timeout,
    ...(blinding !== undefined && { blindingKey: toHex(blinding.privateKey) }),
  };
  return {
    id: answer.id,
    currency,
    invoice: request.invoice,
    invoiceAmount,
    expectedAmount: expectedAmount!,
    address: answer.address,
    redeemScript: refundFile.redeemScript!,
    acceptZeroConf: answer.acceptZeroConf === true,
    ...(answer.bip21 !== undefined && { bip21: answer.bip21 }),
    timeoutBlockHeight: timeout,
    refundFile,
  };
}
