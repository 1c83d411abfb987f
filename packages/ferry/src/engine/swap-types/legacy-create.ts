// API v1 swap creation: the same submarine and reverse swaps as v2, with legacy outputs (boltz-core's redeem
// scripts, no key path), answered in v1's shape — the redeem script the client checks the address against instead
// of a Taproot tree and the service key. On a contract chain a v1 swap is its v2 swap, answered with v1's fields.
import type {
  CreateReverseRequest,
  CreateSubmarineRequest,
  V1CreateReverseResponse,
  V1CreateSubmarineResponse,
} from '@ferry/sdk/protocol/index.js';
import type { EngineContext } from '../context.ts';
import { createReverseSwap, type CreatedReverse } from './reverse.ts';
import { createSubmarineSwap } from './submarine.ts';
import { gasAnswer } from './reverse-gas.ts';

export async function createLegacySubmarine(ctx: EngineContext, request: CreateSubmarineRequest): Promise<V1CreateSubmarineResponse> {
  const { record, data, output, contract, bip21 } = await createSubmarineSwap(ctx, request, 'legacy');
  const withInvoice = data.expectedAmount !== undefined && request.invoice !== undefined;
  if (contract !== undefined) {
    return {
      id: record.id,
      address: contract.contractAddress,
      claimAddress: contract.serviceAddress,
      timeoutBlockHeight: record.timeoutBlockHeight!,
      ...(withInvoice && { expectedAmount: data.expectedAmount, acceptZeroConf: data.acceptZeroConf }),
    };
  }
  return {
    id: record.id,
    address: output!.address,
    redeemScript: output!.legacy!.redeemScript,
    timeoutBlockHeight: record.timeoutBlockHeight!,
    ...(output!.blindingKey !== undefined && { blindingKey: output!.blindingKey }),
    ...(bip21 !== undefined && { expectedAmount: data.expectedAmount, acceptZeroConf: data.acceptZeroConf, bip21 }),
  };
}

export async function createLegacyReverse(
  ctx: EngineContext,
  request: CreateReverseRequest,
): Promise<{ created: CreatedReverse; response: V1CreateReverseResponse }> {
  const created = await createReverseSwap(ctx, request, 'legacy');
  const { record, data, output, contract, gas } = created;
  const response: V1CreateReverseResponse = {
    id: record.id,
    invoice: record.invoice!,
    lockupAddress: record.lockupAddress!,
    ...(output !== undefined && { redeemScript: output.legacy!.redeemScript }),
    timeoutBlockHeight: record.timeoutBlockHeight!,
    // v1 tells the on-chain amount only when the client chose the invoice's.
    ...(request.invoiceAmount !== undefined && { onchainAmount: data.onchainAmount }),
    ...(output?.blindingKey !== undefined && { blindingKey: output.blindingKey }),
    ...(contract !== undefined && { refundAddress: contract.serviceAddress }),
    ...(gas !== undefined && gasAnswer(gas)),
  };
  return { created, response };
}
