// CScriptNum: script numbers are little-endian sign-magnitude byte strings (script.h).

export function encodeNumber(value: number): Uint8Array {
  if (value === 0) return new Uint8Array();
  const bytes: number[] = [];
  let magnitude = Math.abs(value);
  while (magnitude > 0) {
    bytes.push(magnitude & 0xff);
    magnitude = Math.floor(magnitude / 256);
  }
  if (bytes[bytes.length - 1] & 0x80) bytes.push(value < 0 ? 0x80 : 0);
  else if (value < 0) bytes[bytes.length - 1] |= 0x80;
  return Uint8Array.from(bytes);
}

/** Undefined when longer than maxSize bytes (Core throws scriptnum_error: SCRIPT_ERR_UNKNOWN_ERROR). */
export function decodeNumber(bytes: Uint8Array, maxSize = 4): number | undefined {
  if (bytes.length > maxSize) return undefined;
  if (bytes.length === 0) return 0;
  let value = 0;
  for (let i = bytes.length - 1; i >= 0; i--) value = value * 256 + (i === bytes.length - 1 ? bytes[i] & 0x7f : bytes[i]);
  return bytes[bytes.length - 1] & 0x80 ? -value : value;
}
