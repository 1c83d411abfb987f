// Bitcoin Core's way of writing amounts in RPC answers, for both devnet nodes: Core (and elementsd) write every
// amount with ValueFromAmount — a JSON number with exactly 8 decimals and never an exponent (`0.00001000`, not
// `1e-5`) — and real clients parse exactly that text (lightningd's bcli refuses `0.00001`). JSON.stringify cannot
// write a number's text as given (JSON.rawJSON is Node 21+), so an answer carries amounts as BtcAmount markers and
// writeRpcJson, a small JSON writer of our own, writes them verbatim.

const COIN = 100_000_000n;

/** An amount in an RPC answer: written as Core writes it; JSON.stringify (and in-process readers) see a number. */
export class BtcAmount {
  constructor(readonly sat: bigint) {}

  /** Core's ValueFromAmount text: sign, integer part, exactly 8 decimals. */
  text(): string {
    const negative = this.sat < 0n;
    const abs = negative ? -this.sat : this.sat;
    return `${negative ? '-' : ''}${abs / COIN}.${(abs % COIN).toString().padStart(8, '0')}`;
  }

  toJSON(): number {
    return Number(this.text());
  }

  valueOf(): number {
    return Number(this.text());
  }
}

/** An amount of `sat` satoshi (or, for fee rates, satoshi per kvB) as an RPC answer writes it. */
export const btcAmount = (sat: bigint | number): BtcAmount => new BtcAmount(typeof sat === 'bigint' ? sat : BigInt(Math.round(sat)));

/** JSON text of an RPC answer, as JSON.stringify would write it except that BtcAmount values are written as Core writes them. */
export function writeRpcJson(value: unknown): string {
  return write(value) ?? 'null';
}

function write(value: unknown): string | undefined {
  if (value instanceof BtcAmount) return value.text();
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
    case 'boolean':
      return JSON.stringify(value);
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'bigint':
      return value.toString();
  }
  const object = value as { toJSON?: () => unknown };
  if (typeof object.toJSON === 'function') return write(object.toJSON());
  if (Array.isArray(value)) return `[${value.map((item) => write(item) ?? 'null').join(',')}]`;
  const fields: string[] = [];
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const text = write(item);
    if (text !== undefined) fields.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${fields.join(',')}}`;
}
