// QR code constants from ISO/IEC 18004: error-correction block structure per version and level, and the
// BCH-protected format and version words.

export type ErrorCorrectionLevel = 'L' | 'M' | 'Q' | 'H';
export const LEVELS: readonly ErrorCorrectionLevel[] = ['L', 'M', 'Q', 'H'];

/** The two level bits of the format word (the standard's order is not L, M, Q, H). */
export const LEVEL_BITS: Record<ErrorCorrectionLevel, number> = { L: 0b01, M: 0b00, Q: 0b11, H: 0b10 };

// Error-correction codewords per block, by level, for versions 1–40.
const ECC_PER_BLOCK: Record<ErrorCorrectionLevel, number[]> = {
  L: [7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
  M: [10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
  Q: [13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
  H: [17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
};

// Number of error-correction blocks, by level, for versions 1–40.
const BLOCKS: Record<ErrorCorrectionLevel, number[]> = {
  L: [1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
  M: [1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
  Q: [1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
  H: [1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
};

export const MIN_VERSION = 1;
export const MAX_VERSION = 40;

export const sizeOf = (version: number): number => 17 + 4 * version;

export function versionOfSize(size: number): number {
  const version = (size - 17) / 4;
  if (!Number.isInteger(version) || version < MIN_VERSION || version > MAX_VERSION) {
    throw new RangeError(`${size} modules per side is no QR code size`);
  }
  return version;
}

export interface BlockLayout {
  eccPerBlock: number;
  blocks: number;
}

export function blockLayout(version: number, level: ErrorCorrectionLevel): BlockLayout {
  return { eccPerBlock: ECC_PER_BLOCK[level][version - 1], blocks: BLOCKS[level][version - 1] };
}

/** Centres of the alignment patterns along either axis (empty for version 1). */
export function alignmentCentres(version: number): number[] {
  if (version === 1) return [];
  const count = Math.floor(version / 7) + 2;
  const last = sizeOf(version) - 7;
  // Evenly spaced from the last centre back towards 6 with an even step; version 32 is the standard's exception.
  let step = version === 32 ? 26 : Math.ceil((last - 6) / (count - 1));
  if (step % 2 === 1) step++;
  const centres = [6];
  for (let i = count - 2; i >= 0; i--) centres.push(last - i * step);
  return centres;
}

/** Remainder of value·x^(generatorDegree) by the BCH generator: the check bits of format and version words. */
function bchCheck(value: number, generator: number): number {
  const degree = Math.floor(Math.log2(generator));
  let remainder = value << degree;
  for (let bit = Math.floor(Math.log2(remainder || 1)); bit >= degree; bit--) {
    if (remainder & (1 << bit)) remainder ^= generator << (bit - degree);
  }
  return remainder;
}

/** The 15-bit format word of a level and mask, masked with 101010000010010. */
export function formatWord(level: ErrorCorrectionLevel, mask: number): number {
  const data = (LEVEL_BITS[level] << 3) | mask;
  return ((data << 10) | bchCheck(data, 0b10100110111)) ^ 0b101010000010010;
}

/** The 18-bit version word (versions 7 and up). */
export function versionWord(version: number): number {
  return (version << 12) | bchCheck(version, 0b1111100100101);
}

/** Bits in which two words differ. */
export function hammingDistance(a: number, b: number): number {
  let x = a ^ b;
  let count = 0;
  while (x) {
    count += x & 1;
    x >>>= 1;
  }
  return count;
}
