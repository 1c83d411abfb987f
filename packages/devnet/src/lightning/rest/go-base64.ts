// Base64 exactly as LND's REST gateway decodes it, written by hand because the two rules are Go's and Node's own
// decoder is lenient (it takes any padding, or none, and skips bad characters):
// - bytes in a URL path or query go through grpc-gateway's runtime.Bytes: Go's base64.StdEncoding, and when that
//   fails base64.URLEncoding, both *padded*; the error reported is the URL-safe attempt's
//   ("illegal base64 data at input byte N", Go's CorruptInputError);
// - bytes in a JSON body go through protojson: URL-safe when the text has '-' or '_', else standard, padded when the
//   length is a multiple of 4, else unpadded.
// Go's decoder (not its strict mode) skips '\r' and '\n' and ignores non-zero trailing bits.

const STD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

export class CorruptInputError extends Error {
  constructor(readonly offset: number) {
    super(`illegal base64 data at input byte ${offset}`);
  }
}

/** Go's (*base64.Encoding).DecodeString for the given alphabet, padded ('=') or not. */
export function goBase64Decode(text: string, alphabet: 'std' | 'url', padded: boolean): Buffer {
  const chars = alphabet === 'std' ? STD : URL;
  const src = Buffer.from(text, 'latin1');
  const out: number[] = [];
  let si = 0;
  for (;;) {
    const buf = [0, 0, 0, 0];
    let dlen = 4;
    let trailing: number | undefined;
    let j = 0;
    for (; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return Buffer.from(out);
        if (j === 1 || padded) throw new CorruptInputError(si - j);
        dlen = j;
        break;
      }
      const c = String.fromCharCode(src[si]);
      si++;
      const value = chars.indexOf(c);
      if (value >= 0) {
        buf[j] = value;
        continue;
      }
      if (c === '\n' || c === '\r') {
        j--;
        continue;
      }
      if (!padded || c !== '=') throw new CorruptInputError(si - 1);
      if (j === 0 || j === 1) throw new CorruptInputError(si - 1);
      if (j === 2) {
        while (si < src.length && (src[si] === 0x0a || src[si] === 0x0d)) si++;
        if (si === src.length) throw new CorruptInputError(src.length);
        if (src[si] !== 0x3d) throw new CorruptInputError(si - 1);
        si++;
      }
      while (si < src.length && (src[si] === 0x0a || src[si] === 0x0d)) si++;
      if (si < src.length) trailing = si;
      dlen = j;
      break;
    }
    const val = (buf[0] << 18) | (buf[1] << 12) | (buf[2] << 6) | buf[3];
    const bytes = [(val >> 16) & 0xff, (val >> 8) & 0xff, val & 0xff];
    out.push(...bytes.slice(0, dlen - 1));
    if (trailing !== undefined) throw new CorruptInputError(trailing);
    if (dlen < 4) return Buffer.from(out);
  }
}

/** grpc-gateway's runtime.Bytes: padded standard base64, else padded URL-safe base64. */
export function runtimeBytes(text: string): Buffer {
  try {
    return goBase64Decode(text, 'std', true);
  } catch {
    return goBase64Decode(text, 'url', true);
  }
}

/** protojson's bytes rule for JSON bodies; undefined when protojson would refuse the text. */
export function protojsonBytes(text: string): Buffer | undefined {
  try {
    return goBase64Decode(text, /[-_]/.test(text) ? 'url' : 'std', text.length % 4 === 0);
  } catch {
    return undefined;
  }
}
