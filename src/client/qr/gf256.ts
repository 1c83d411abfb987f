// Arithmetic in GF(2^8) with the QR code's primitive polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11d) and
// generator α = 2, through log/antilog tables.

const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);
{
  let value = 1;
  for (let power = 0; power < 255; power++) {
    EXP[power] = value;
    LOG[value] = power;
    value <<= 1;
    if (value & 0x100) value ^= 0x11d;
  }
  // A doubled table spares a modulo in multiply.
  for (let power = 255; power < 512; power++) EXP[power] = EXP[power - 255];
}

export function multiply(a: number, b: number): number {
  if (a === 0 || b === 0) return 0;
  return EXP[LOG[a] + LOG[b]];
}

export function divide(a: number, b: number): number {
  if (b === 0) throw new RangeError('division by zero in GF(256)');
  if (a === 0) return 0;
  return EXP[(LOG[a] + 255 - LOG[b]) % 255];
}

/** α^power for any integer power. */
export function alphaPower(power: number): number {
  return EXP[((power % 255) + 255) % 255];
}

export function inverse(a: number): number {
  return divide(1, a);
}
