// Translates PostgreSQL-style `$n` placeholders to SQLite's anonymous `?`, so one SQL text serves
// both dialects. better-sqlite3 binds `?` positionally, so the translation also records which
// parameter each `?` takes: `$2 ... $1 ... $2` becomes `? ... ? ... ?` bound to [p2, p1, p2].

export interface TranslatedSql {
  sql: string;
  /** Zero-based index into the caller's parameters for each `?`, in order of appearance. */
  order: number[];
  /** How many parameters the statement expects (the highest `$n`). */
  arity: number;
}

const identifierChar = /[A-Za-z0-9_$]/;

export function translatePlaceholders(sql: string): TranslatedSql {
  let out = '';
  const order: number[] = [];
  let arity = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    const quoteEnd = c === "'" || c === '"' || c === '`' ? closingQuote(sql, i, c) : -1;
    if (quoteEnd >= 0) {
      out += sql.slice(i, quoteEnd);
      i = quoteEnd;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end < 0 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      const stop = end < 0 ? sql.length : end + 2;
      out += sql.slice(i, stop);
      i = stop;
    } else if (c === '$' && /[0-9]/.test(sql[i + 1] ?? '') && !identifierChar.test(sql[i - 1] ?? '')) {
      let j = i + 1;
      while (j < sql.length && /[0-9]/.test(sql[j])) j++;
      const n = Number(sql.slice(i + 1, j));
      if (n < 1) throw new RangeError(`invalid placeholder $${n} in SQL: ${sql}`);
      order.push(n - 1);
      arity = Math.max(arity, n);
      out += '?';
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  return { sql: out, order, arity };
}

/** Index just past the quote that closes the one at `start`; a doubled quote is an escaped quote. */
function closingQuote(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else i++;
  }
  return sql.length;
}
