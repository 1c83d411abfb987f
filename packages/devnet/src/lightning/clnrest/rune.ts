// The rune a devnet CLN node hands Ferry (devnet.json), and the check clnrest makes of the `Rune` header. A real
// rune is a SHA-256 chain over the node's master secret and the rune's restrictions; the devnet's is the same
// idea reduced to what it needs: base64url(HMAC-SHA256(node secret, restrictions) || restrictions), minted
// without restrictions, so it allows every method, as `createrune` with no restrictions does.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { CLN, ClnError } from './errors.ts';

const tagOf = (secretKeyHex: string, restrictions: Buffer): Buffer =>
  createHmac('sha256', Buffer.from(secretKeyHex, 'hex')).update('devnet-rune:').update(restrictions).digest();

export function mintRune(secretKeyHex: string): string {
  return tagOf(secretKeyHex, Buffer.alloc(0)).toString('base64url');
}

/** Throws clnrest's answer for a missing rune (403) or one the node did not mint (401). */
export function checkRune(header: string | undefined, secretKeyHex: string): void {
  if (header === undefined || header === '') {
    throw new ClnError(CLN.RUNE_NOT_AUTHORIZED, 'Not authorized: Missing rune', 403);
  }
  if (!/^[A-Za-z0-9_=-]+$/.test(header)) {
    throw new ClnError(CLN.INVALID_PARAMS, 'rune: should be base64 string', 401);
  }
  const bytes = Buffer.from(header.replace(/=+$/, ''), 'base64url');
  if (bytes.length < 32) throw new ClnError(CLN.RUNE_NOT_AUTHORIZED, 'Not authorized: Not derived from master', 401);
  const restrictions = bytes.subarray(32);
  const expected = tagOf(secretKeyHex, restrictions);
  if (!timingSafeEqual(bytes.subarray(0, 32), expected)) {
    throw new ClnError(CLN.RUNE_NOT_AUTHORIZED, 'Not authorized: Not derived from master', 401);
  }
  // The devnet mints no restricted runes; one it did not mint cannot carry restrictions it could honour.
  if (restrictions.length > 0) throw new ClnError(CLN.RUNE_NOT_PERMITTED, 'Not permitted: restrictions unsupported', 401);
}
