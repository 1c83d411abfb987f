// BIP66's strict DER encoding of an ECDSA signature (plus its hash-type byte), as Bitcoin Core and elementsd check
// it; both devnet nodes use this one copy.

/** IsValidSignatureEncoding: strict DER plus one hash-type byte. */
export function isValidSignatureEncoding(sig: Uint8Array): boolean {
  if (sig.length < 9 || sig.length > 73) return false;
  if (sig[0] !== 0x30 || sig[1] !== sig.length - 3) return false;
  const lenR = sig[3];
  if (5 + lenR >= sig.length) return false;
  const lenS = sig[5 + lenR];
  if (lenR + lenS + 7 !== sig.length) return false;
  if (sig[2] !== 0x02 || lenR === 0 || sig[4] & 0x80) return false;
  if (lenR > 1 && sig[4] === 0 && !(sig[5] & 0x80)) return false;
  if (sig[lenR + 4] !== 0x02 || lenS === 0 || sig[lenR + 6] & 0x80) return false;
  if (lenS > 1 && sig[lenR + 6] === 0 && !(sig[lenR + 7] & 0x80)) return false;
  return true;
}
