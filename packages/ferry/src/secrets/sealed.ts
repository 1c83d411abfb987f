// A secret at rest sealed with the operator's passphrase, so a copied data directory or backup does not hand over
// the keys: scrypt (RFC 7914) stretches the passphrase into a 32-byte key, XChaCha20-Poly1305 encrypts and
// authenticates the secret (both from the audited @noble libraries). The file is a small JSON object carrying every
// parameter needed to open it; those parameters are the cipher's associated data, so a file whose work factor or
// salt was edited fails to open exactly as a wrong passphrase does.
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { bytesToHex, bytesToUtf8, hexToBytes, randomBytes, utf8ToBytes } from '@noble/ciphers/utils.js';
import { scryptAsync } from '@noble/hashes/scrypt.js';

export const SEALED_FORMAT = 'ferry-sealed-secret';

export interface ScryptParams {
  /** log2 of scrypt's N (CPU and memory cost). */
  logN: number;
  r: number;
  p: number;
}

/** 2^17 × 8 × 128 bytes = 128 MiB and about a second of one core: RFC 7914's interactive-login setting, doubled. */
export const DEFAULT_SCRYPT: ScryptParams = { logN: 17, r: 8, p: 1 };
/** What a sealed file may ask for at most (1 GiB): a file is refused rather than allowed to exhaust the machine. */
const MAX_LOG_N = 20;

interface Envelope {
  format: typeof SEALED_FORMAT;
  version: 1;
  kdf: { name: 'scrypt'; logN: number; r: number; p: number; salt: string };
  cipher: 'xchacha20-poly1305';
  nonce: string;
  ciphertext: string;
}

/** The passphrase does not open the file (or the file was altered: the two cannot be told apart). */
export class WrongPassphrase extends Error {
  constructor(where: string) {
    super(`wrong passphrase for ${where} (or the file was altered)`);
    this.name = 'WrongPassphrase';
  }
}

/** A file that claims to be sealed but is not a sealed secret Ferry can read. */
export class SealedFileError extends Error {}

/** Whether a secret file's text is a sealed secret (otherwise it is the secret in plain text). */
export function isSealed(text: string): boolean {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{')) return false;
  try {
    return (JSON.parse(trimmed) as { format?: unknown }).format === SEALED_FORMAT;
  } catch {
    return false;
  }
}

/** The bytes the cipher authenticates besides the secret: every parameter of the envelope, in a fixed order. */
const associatedData = (envelope: Pick<Envelope, 'format' | 'version' | 'kdf' | 'cipher'>): Uint8Array =>
  utf8ToBytes(JSON.stringify([envelope.format, envelope.version, envelope.kdf.name, envelope.kdf.logN, envelope.kdf.r, envelope.kdf.p, envelope.kdf.salt, envelope.cipher]));

const keyOf = (passphrase: string, kdf: Envelope['kdf']): Promise<Uint8Array> =>
  scryptAsync(utf8ToBytes(passphrase.normalize('NFKC')), hexToBytes(kdf.salt), { N: 2 ** kdf.logN, r: kdf.r, p: kdf.p, dkLen: 32, maxmem: 2 ** 31 });

/** The sealed file's text (JSON, one line plus a newline) of `secret` under `passphrase`. */
export async function seal(secret: string, passphrase: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<string> {
  if (passphrase === '') throw new SealedFileError('an empty passphrase seals nothing');
  const kdf = { name: 'scrypt' as const, logN: params.logN, r: params.r, p: params.p, salt: bytesToHex(randomBytes(16)) };
  const header = { format: SEALED_FORMAT as typeof SEALED_FORMAT, version: 1 as const, kdf, cipher: 'xchacha20-poly1305' as const };
  const key = await keyOf(passphrase, kdf);
  const nonce = randomBytes(24);
  const ciphertext = xchacha20poly1305(key, nonce, associatedData(header)).encrypt(utf8ToBytes(secret));
  key.fill(0);
  const envelope: Envelope = { ...header, nonce: bytesToHex(nonce), ciphertext: bytesToHex(ciphertext) };
  return JSON.stringify(envelope) + '\n';
}

function envelopeOf(text: string, where: string): Envelope {
  let parsed: Envelope;
  try {
    parsed = JSON.parse(text) as Envelope;
  } catch {
    throw new SealedFileError(`${where} is not a sealed secret (not JSON)`);
  }
  const { kdf } = parsed;
  const hex = (value: unknown) => typeof value === 'string' && /^([0-9a-f]{2})+$/.test(value);
  const small = (value: unknown, max: number) => Number.isInteger(value) && (value as number) >= 1 && (value as number) <= max;
  if (parsed.format !== SEALED_FORMAT || parsed.version !== 1) throw new SealedFileError(`${where}: not a sealed secret of a version this Ferry reads`);
  if (parsed.cipher !== 'xchacha20-poly1305' || kdf?.name !== 'scrypt') throw new SealedFileError(`${where}: unknown cipher or key derivation`);
  if (!small(kdf.logN, MAX_LOG_N) || !small(kdf.r, 32) || !small(kdf.p, 16) || !hex(kdf.salt)) throw new SealedFileError(`${where}: scrypt parameters out of range`);
  if (!hex(parsed.nonce) || parsed.nonce.length !== 48 || !hex(parsed.ciphertext)) throw new SealedFileError(`${where}: malformed nonce or ciphertext`);
  return parsed;
}

/** The secret sealed in `text`; `where` (the file's path) names it in errors. WrongPassphrase when it does not open. */
export async function unseal(text: string, passphrase: string, where: string): Promise<string> {
  const envelope = envelopeOf(text, where);
  const key = await keyOf(passphrase, envelope.kdf);
  try {
    return bytesToUtf8(xchacha20poly1305(key, hexToBytes(envelope.nonce), associatedData(envelope)).decrypt(hexToBytes(envelope.ciphertext)));
  } catch {
    throw new WrongPassphrase(where);
  } finally {
    key.fill(0);
  }
}
