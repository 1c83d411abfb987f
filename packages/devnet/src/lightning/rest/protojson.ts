// Decodes an LND REST request body as LND's gateway does: grpc-gateway's JSONPb with LND's unmarshal options, i.e.
// protojson with DiscardUnknown off. Written by hand (protojson is Go): a small JSON reader that keeps each token's
// position, then protojson's rules per field kind, with its error texts ("proto: (line 1:2): unknown field \"x\"")
// and the gateway's code 3 (HTTP 400). Field names are the proto names or their lowerCamelCase JSON names; an
// answer carries back the body with proto names.
import { GRPC, LndError } from '../errors.ts';
import { ENUMS, MESSAGES, type FieldKind } from './messages.ts';
import { protojsonBytes } from './go-base64.ts';

type Node =
  | { t: 'object'; pos: number; entries: { key: string; keyRaw: string; keyPos: number; value: Node }[] }
  | { t: 'array'; pos: number; items: Node[] }
  | { t: 'string'; pos: number; raw: string; value: string }
  | { t: 'number'; pos: number; raw: string }
  | { t: 'bool'; pos: number; raw: string; value: boolean }
  | { t: 'null'; pos: number; raw: string };

class Reader {
  i = 0;
  constructor(readonly text: string) {}

  fail(message: string): never {
    throw new LndError(GRPC.INVALID_ARGUMENT, message);
  }

  skipSpace(): void {
    while (this.i < this.text.length && ' \t\r\n'.includes(this.text[this.i])) this.i++;
  }

  value(): Node {
    this.skipSpace();
    const c = this.text[this.i];
    const pos = this.i;
    if (c === undefined) this.fail('unexpected EOF');
    if (c === '{') {
      this.i++;
      const entries: { key: string; keyRaw: string; keyPos: number; value: Node }[] = [];
      this.skipSpace();
      if (this.text[this.i] === '}') {
        this.i++;
        return { t: 'object', pos, entries };
      }
      for (;;) {
        this.skipSpace();
        const keyPos = this.i;
        if (this.text[this.i] !== '"') this.invalid('looking for beginning of object key string');
        const key = this.string();
        this.skipSpace();
        if (this.text[this.i] !== ':') this.invalid('after object key');
        this.i++;
        entries.push({ key: key.value, keyRaw: key.raw, keyPos, value: this.value() });
        this.skipSpace();
        if (this.text[this.i] === ',') {
          this.i++;
          continue;
        }
        if (this.text[this.i] === '}') {
          this.i++;
          return { t: 'object', pos, entries };
        }
        this.invalid('after object key:value pair');
      }
    }
    if (c === '[') {
      this.i++;
      const items: Node[] = [];
      this.skipSpace();
      if (this.text[this.i] === ']') {
        this.i++;
        return { t: 'array', pos, items };
      }
      for (;;) {
        items.push(this.value());
        this.skipSpace();
        if (this.text[this.i] === ',') {
          this.i++;
          continue;
        }
        if (this.text[this.i] === ']') {
          this.i++;
          return { t: 'array', pos, items };
        }
        this.invalid('after array element');
      }
    }
    if (c === '"') return { t: 'string', pos, ...this.string() };
    for (const [word, node] of [
      ['true', { t: 'bool', pos, raw: 'true', value: true }],
      ['false', { t: 'bool', pos, raw: 'false', value: false }],
      ['null', { t: 'null', pos, raw: 'null' }],
    ] as const) {
      if (this.text.startsWith(word, this.i)) {
        this.i += word.length;
        return node;
      }
    }
    const number = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.i));
    if (number === null) this.invalid('looking for beginning of value');
    this.i += number[0].length;
    return { t: 'number', pos, raw: number[0] };
  }

  string(): { raw: string; value: string } {
    const start = this.i;
    this.i++;
    while (this.i < this.text.length && this.text[this.i] !== '"') this.i += this.text[this.i] === '\\' ? 2 : 1;
    if (this.i >= this.text.length) this.fail('unexpected EOF');
    this.i++;
    const raw = this.text.slice(start, this.i);
    try {
      return { raw, value: JSON.parse(raw) as string };
    } catch {
      return this.invalid('in string escape code');
    }
  }

  // encoding/json's syntax error text, which the gateway passes on when the body is not JSON.
  invalid(context: string): never {
    const c = this.text[this.i];
    if (c === undefined) this.fail('unexpected EOF');
    this.fail(`invalid character ${JSON.stringify(c).replace(/^"|"$/g, "'")} ${context}`);
  }
}

/** A decoded body: proto field names, values as the JSON gave them (null fields dropped). */
export type DecodedBody = Record<string, unknown>;

const snakeToCamel = (name: string): string => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

class Decoder {
  constructor(readonly text: string) {}

  error(pos: number, message: string): LndError {
    const before = this.text.slice(0, pos);
    const line = before.split('\n').length;
    const column = [...before.slice(before.lastIndexOf('\n') + 1)].length + 1;
    return new LndError(GRPC.INVALID_ARGUMENT, `proto: (line ${line}:${column}): ${message}`);
  }

  syntax(node: Node): LndError {
    const before = this.text.slice(0, node.pos);
    const line = before.split('\n').length;
    const column = [...before.slice(before.lastIndexOf('\n') + 1)].length + 1;
    const token = node.t === 'object' ? '{' : node.t === 'array' ? '[' : node.raw;
    return new LndError(GRPC.INVALID_ARGUMENT, `proto: syntax error (line ${line}:${column}): unexpected token ${token}`);
  }

  message(node: Node, name: string): DecodedBody {
    if (node.t !== 'object') throw this.syntax(node);
    const fields = MESSAGES[name] ?? {};
    const byJson = new Map(Object.keys(fields).map((f) => [snakeToCamel(f), f]));
    const out: DecodedBody = {};
    const seen = new Set<string>();
    for (const entry of node.entries) {
      const field = entry.key in fields ? entry.key : byJson.get(entry.key);
      if (field === undefined) throw this.error(entry.keyPos, `unknown field ${entry.keyRaw}`);
      if (seen.has(field)) throw this.error(entry.keyPos, `duplicate field ${entry.keyRaw}`);
      seen.add(field);
      if (entry.value.t === 'null') continue;
      out[field] = this.field(entry.value, fields[field]);
    }
    return out;
  }

  field(node: Node, kind: FieldKind): unknown {
    if (kind.startsWith('repeated:')) {
      if (node.t !== 'array') throw this.syntax(node);
      return node.items.map((item) => this.field(item, kind.slice('repeated:'.length)));
    }
    if (kind.startsWith('map:')) {
      if (node.t !== 'object') throw this.syntax(node);
      return Object.fromEntries(node.entries.map((e) => [e.key, this.field(e.value, kind.slice('map:'.length))]));
    }
    if (kind.startsWith('message:')) return this.message(node, kind.slice('message:'.length));
    return this.scalar(node, kind);
  }

  scalar(node: Node, kind: FieldKind): unknown {
    const bad = (): LndError => {
      const raw = node.t === 'object' || node.t === 'array' ? this.text.slice(node.pos, node.pos + 1) : node.raw;
      return this.error(node.pos, `invalid value for ${kind.startsWith('enum:') ? 'enum' : kind} type: ${raw}`);
    };
    switch (kind) {
      case 'bool':
        if (node.t !== 'bool') throw bad();
        return node.value;
      case 'string':
        if (node.t !== 'string') throw bad();
        return node.value;
      case 'bytes': {
        if (node.t !== 'string' || protojsonBytes(node.value) === undefined) throw bad();
        return node.value;
      }
      case 'int32':
      case 'uint32':
      case 'int64':
      case 'uint64': {
        const text = node.t === 'number' ? node.raw : node.t === 'string' ? node.value : undefined;
        const n = text === undefined ? undefined : integerOf(text);
        const [min, max] = RANGES[kind];
        if (n === undefined || n < min || n > max) throw bad();
        return node.t === 'number' ? Number(n) : text;
      }
      case 'double':
      case 'float':
        if (node.t === 'number') return Number(node.raw);
        if (node.t === 'string' && /^(NaN|-?Infinity|-?\d+(\.\d+)?([eE][+-]?\d+)?)$/.test(node.value)) return Number(node.value);
        throw bad();
      default: {
        const values = ENUMS[kind.slice('enum:'.length)] ?? [];
        if (node.t === 'string' && values.includes(node.value)) return node.value;
        if (node.t === 'number' && /^-?\d+$/.test(node.raw)) return Number(node.raw);
        throw bad();
      }
    }
  }
}

const RANGES: Record<string, [bigint, bigint]> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
};

// protojson reads an integer from a JSON number or a string holding one, exponent form included when integral.
function integerOf(text: string): bigint | undefined {
  const m = /^(-?)(0|[1-9]\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (m === null) return undefined;
  const [, sign, whole, fraction = '', exponentText = '0'] = m;
  const exponent = Number(exponentText) - fraction.length;
  let digits = whole + fraction;
  if (exponent < 0) {
    const cut = digits.length + exponent;
    if (cut < 0 ? /[1-9]/.test(digits) : /[1-9]/.test(digits.slice(cut))) return undefined;
    digits = cut <= 0 ? '0' : digits.slice(0, cut);
  } else {
    if (exponent > 40) return undefined;
    digits += '0'.repeat(exponent);
  }
  return BigInt(sign + digits);
}

/** Decodes a request body for `message` (a name in MESSAGES); an empty body is the empty message. */
export function decodeBody(text: string, message: string): DecodedBody {
  const trimmed = text.replace(/^[ \t\r\n]+/, '');
  if (trimmed === '') return {};
  const reader = new Reader(trimmed);
  const root = reader.value();
  // encoding/json's Decoder reads the first value; what follows it is never read.
  return new Decoder(trimmed.slice(0, reader.i)).message(root, message);
}
