// The EVM swap contracts as clients find them, shared by v1 (/getcontracts) and v2 (/v2/chain/contracts,
// /v2/chain/{currency}/contracts): v1 lists fewer fields. With no EVM chain served both answer 501, the
// reference's "integration not enabled", rather than an empty object a client could read as "no contracts yet".
import type { ContractsInfo } from '@ferry/sdk/chains/evm/contracts-info.js';
import type { EvmChain, EvmChains } from './chain-routes.ts';
import { HttpError, notFound } from './http/errors.ts';

function served(evm: EvmChains): EvmChain[] {
  if (evm.size === 0) throw new HttpError(501, 'Ferry serves no EVM chain (RBTC): there are no swap contracts');
  return [...evm.values()];
}

/** Every EVM chain's contracts, by network key ("rsk"). */
export function allContracts(evm: EvmChains): Record<string, ContractsInfo> {
  return Object.fromEntries(served(evm).map((chain) => [chain.networkKey, chain.contractsInfo()]));
}

/** v1's shape: no supportedContracts. */
export function contractsV1(evm: EvmChains): Record<string, Pick<ContractsInfo, 'network' | 'swapContracts' | 'tokens'>> {
  return Object.fromEntries(
    Object.entries(allContracts(evm)).map(([key, { network, swapContracts, tokens }]) => [key, { network, swapContracts, tokens }]),
  );
}

/** One currency's contracts; 404 for a currency that is not on an EVM chain (as the reference answers). */
export function currencyContracts(evm: EvmChains, currency: string): ContractsInfo {
  served(evm);
  const chain = evm.get(currency);
  if (!chain) throw notFound(`${currency} is not on an EVM chain`);
  return chain.contractsInfo();
}
