// Amounts: the node counts integer satoshi (bigint); RPC shows BTC as JSON numbers with 8 decimals
// (common/rpc-json.ts) and error texts use Core's FormatMoney.
import { btcAmount, type BtcAmount } from '../common/rpc-json.ts';

export const COIN = 100_000_000n;
export const MAX_MONEY = 21_000_000n * COIN;

/** An amount in an RPC answer (written as Core's ValueFromAmount: `0.00001000`). */
export const satToBtc = (sat: bigint): BtcAmount => btcAmount(sat);

/** Core's FormatMoney: at least two decimals, trailing zeros trimmed ("1.00", "0.001"). */
export function formatMoney(sat: bigint): string {
  const negative = sat < 0n;
  const abs = negative ? -sat : sat;
  let text = `${abs / COIN}.${(abs % COIN).toString().padStart(8, '0')}`;
  while (text.endsWith('0') && text[text.length - 3] !== '.') text = text.slice(0, -1);
  return negative ? '-' + text : text;
}

export class AmountError extends Error {}

/** Core's AmountFromValue: a JSON number or string with at most 8 decimals, within the money range. */
export function parseAmount(value: unknown): bigint {
  if (typeof value !== 'number' && typeof value !== 'string') throw new AmountError('Amount is not a number or string');
  const text = typeof value === 'number' ? numberToPlain(value) : value.trim();
  const match = /^(-?)(\d+)(?:\.(\d*))?$/.exec(text);
  if (!match || (match[3] !== undefined && match[3].length > 8)) throw new AmountError('Invalid amount');
  const sat = BigInt(match[2]) * COIN + BigInt((match[3] ?? '').padEnd(8, '0') || '0');
  if (match[1] === '-' || sat > MAX_MONEY) throw new AmountError('Amount out of range');
  return sat;
}

function numberToPlain(value: number): string {
  if (!Number.isFinite(value)) throw new AmountError('Invalid amount');
  // toFixed(8) would silently round 1e-9 to 0: refuse more than 8 decimals first, as Core does.
  const scaled = value * 1e8;
  if (Math.abs(scaled - Math.round(scaled)) > 1e-6 * Math.max(1, Math.abs(scaled) / 1e8)) throw new AmountError('Invalid amount');
  return value.toFixed(8);
}
