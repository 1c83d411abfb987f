// QR encoding of bytes (byte mode): the smallest version that holds them at the chosen level, codewords
// with Reed–Solomon blocks interleaved, placed in zigzag order, with the data mask of lowest penalty.
import { layoutOf, maskInverts, formatPositions, versionPositions, totalCodewords, type Grid } from './matrix.ts';
import { rsEncode } from './reed-solomon.ts';
import { MAX_VERSION, MIN_VERSION, blockLayout, formatWord, versionWord, type ErrorCorrectionLevel } from './tables.ts';

export interface QrSymbol extends Grid {
  version: number;
  level: ErrorCorrectionLevel;
  mask: number;
}

const BYTE_MODE = 0b0100;

export const countBits = (version: number): number => (version <= 9 ? 8 : 16);

export function dataCodewords(version: number, level: ErrorCorrectionLevel): number {
  const { eccPerBlock, blocks } = blockLayout(version, level);
  return totalCodewords(version) - eccPerBlock * blocks;
}

class BitWriter {
  readonly bits: number[] = [];
  write(value: number, length: number): void {
    for (let i = length - 1; i >= 0; i--) this.bits.push((value >>> i) & 1);
  }
}

/** The data codewords: mode, count, bytes, terminator, padding. */
function dataStream(bytes: Uint8Array, version: number, capacity: number): Uint8Array {
  const writer = new BitWriter();
  writer.write(BYTE_MODE, 4);
  writer.write(bytes.length, countBits(version));
  for (const byte of bytes) writer.write(byte, 8);
  const capacityBits = capacity * 8;
  writer.write(0, Math.min(4, capacityBits - writer.bits.length));
  writer.write(0, (8 - (writer.bits.length % 8)) % 8);
  const out = new Uint8Array(capacity);
  const used = writer.bits.length / 8;
  for (let i = 0; i < used; i++) {
    let byte = 0;
    for (let b = 0; b < 8; b++) byte = (byte << 1) | writer.bits[i * 8 + b];
    out[i] = byte;
  }
  for (let i = used; i < capacity; i++) out[i] = (i - used) % 2 === 0 ? 0xec : 0x11;
  return out;
}

/** Sizes of the data parts of the blocks: the short blocks first, the ones with one more codeword after. */
export function blockDataLengths(version: number, level: ErrorCorrectionLevel): number[] {
  const { eccPerBlock, blocks } = blockLayout(version, level);
  const total = totalCodewords(version);
  const shortBlocks = blocks - (total % blocks);
  const shortData = Math.floor(total / blocks) - eccPerBlock;
  return Array.from({ length: blocks }, (_, i) => shortData + (i < shortBlocks ? 0 : 1));
}

/** Splits the data into blocks, appends each block's check codewords, and interleaves them column by column. */
function interleave(data: Uint8Array, version: number, level: ErrorCorrectionLevel): Uint8Array {
  const { eccPerBlock } = blockLayout(version, level);
  const lengths = blockDataLengths(version, level);
  const blocks: Uint8Array[] = [];
  const checks: Uint8Array[] = [];
  let offset = 0;
  for (const length of lengths) {
    const block = data.subarray(offset, offset + length);
    offset += length;
    blocks.push(block);
    checks.push(rsEncode(block, eccPerBlock));
  }
  const out: number[] = [];
  const longest = Math.max(...lengths);
  for (let i = 0; i < longest; i++) for (const block of blocks) if (i < block.length) out.push(block[i]);
  for (let i = 0; i < eccPerBlock; i++) for (const check of checks) out.push(check[i]);
  return Uint8Array.from(out);
}

function place(version: number, level: ErrorCorrectionLevel, codewords: Uint8Array, mask: number): boolean[] {
  const layout = layoutOf(version);
  const { size } = layout;
  const dark = layout.pattern.dark.slice();
  layout.dataOrder.forEach((index, bit) => {
    const value = bit < codewords.length * 8 ? ((codewords[bit >>> 3] >>> (7 - (bit & 7))) & 1) === 1 : false;
    dark[index] = value !== maskInverts(mask, Math.floor(index / size), index % size);
  });
  const format = formatWord(level, mask);
  for (const copy of formatPositions(size)) {
    copy.forEach(([row, column], i) => (dark[row * size + column] = ((format >>> i) & 1) === 1));
  }
  if (version >= 7) {
    const word = versionWord(version);
    for (const copy of versionPositions(size)) {
      copy.forEach(([row, column], i) => (dark[row * size + column] = ((word >>> i) & 1) === 1));
    }
  }
  return dark;
}

export interface EncodeOptions {
  level?: ErrorCorrectionLevel; // default M
  mask?: number; // default: the mask with the lowest penalty
}

export function encodeQr(bytes: Uint8Array, options: EncodeOptions = {}): QrSymbol {
  const level = options.level ?? 'M';
  let version = MIN_VERSION;
  const needed = (v: number) => Math.ceil((4 + countBits(v) + 8 * bytes.length) / 8);
  while (version <= MAX_VERSION && needed(version) > dataCodewords(version, level)) version++;
  if (version > MAX_VERSION) throw new RangeError(`${bytes.length} bytes do not fit in a QR code at level ${level}`);

  const codewords = interleave(dataStream(bytes, version, dataCodewords(version, level)), version, level);
  const size = layoutOf(version).size;
  const masks = options.mask !== undefined ? [options.mask] : [0, 1, 2, 3, 4, 5, 6, 7];
  let best: { mask: number; dark: boolean[]; penalty: number } | undefined;
  for (const mask of masks) {
    const dark = place(version, level, codewords, mask);
    const score = penalty({ size, dark });
    if (best === undefined || score < best.penalty) best = { mask, dark, penalty: score };
  }
  return { version, level, mask: best!.mask, size, dark: best!.dark };
}

/** The standard's penalty: long runs, 2×2 blocks, finder look-alikes, and imbalance of dark and light. */
export function penalty(grid: Grid): number {
  const { size, dark } = grid;
  const at = (row: number, column: number) => dark[row * size + column];
  let score = 0;
  const finderLike = [true, false, true, true, true, false, true];
  for (const horizontal of [true, false]) {
    for (let line = 0; line < size; line++) {
      const module = (i: number) => (horizontal ? at(line, i) : at(i, line));
      let run = 1;
      for (let i = 1; i <= size; i++) {
        if (i < size && module(i) === module(i - 1)) {
          run++;
          continue;
        }
        if (run >= 5) score += 3 + (run - 5);
        run = 1;
      }
      // 1:1:3:1:1 with four light modules on one side.
      for (let i = 0; i + 7 <= size; i++) {
        if (!finderLike.every((value, k) => module(i + k) === value)) continue;
        const lightBefore = i >= 4 && [1, 2, 3, 4].every((k) => !module(i - k));
        const lightAfter = i + 11 <= size && [7, 8, 9, 10].every((k) => !module(i + k));
        if (lightBefore || lightAfter) score += 40;
      }
    }
  }
  for (let row = 0; row + 1 < size; row++) {
    for (let column = 0; column + 1 < size; column++) {
      const value = at(row, column);
      if (at(row, column + 1) === value && at(row + 1, column) === value && at(row + 1, column + 1) === value) score += 3;
    }
  }
  const darkCount = dark.filter(Boolean).length;
  const percent = (darkCount * 100) / (size * size);
  score += 10 * Math.floor(Math.abs(percent - 50) / 5);
  return score;
}
