// Amounts per asset as elementsd's AmountMapToUniv shows them: by label (the policy asset is "bitcoin", always
// present), other assets by id, in BTC.
import { POLICY_ASSET } from '../wallet/network.ts';

/** Per asset id (elementsd's display order), sat. */
export type AssetBalances = Map<string, bigint>;

export function assetAmounts(balances: AssetBalances): Record<string, number> {
  const result: Record<string, number> = { bitcoin: 0 };
  for (const [asset, sat] of balances) result[asset === POLICY_ASSET ? 'bitcoin' : asset] = Number(sat) / 1e8;
  return result;
}
