// Amounts per asset as elementsd's AmountMapToUniv shows them: by label (the policy asset is "bitcoin", always
// present), other assets by id, in BTC.
import { satToBtc } from '../../bitcoin/amount.ts';
import type { BtcAmount } from '../../common/rpc-json.ts';
import { POLICY_ASSET } from '../wallet/network.ts';

/** Per asset id (elementsd's display order), sat. */
export type AssetBalances = Map<string, bigint>;

export function assetAmounts(balances: AssetBalances): Record<string, BtcAmount> {
  const result: Record<string, BtcAmount> = { bitcoin: satToBtc(0n) };
  for (const [asset, sat] of balances) result[asset === POLICY_ASSET ? 'bitcoin' : asset] = satToBtc(sat);
  return result;
}
