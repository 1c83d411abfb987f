// QR decoding of a module grid: the format word (nearest valid one, either copy), unmasking, codewords in
// zigzag order, de-interleaving, Reed–Solomon correction per block, and the byte-mode segments.
import { blockDataLengths, countBits } from './encode.ts';
import { formatPositions, layoutOf, maskInverts, totalCodewords, type Grid } from './matrix.ts';
import { rsDecode } from './reed-solomon.ts';
import { LEVELS, blockLayout, formatWord, hammingDistance, versionOfSize, type ErrorCorrectionLevel } from './tables.ts';

export class QrDecodeError extends Error {}

export interface DecodedQr {
  bytes: Uint8Array;
  version: number;
  level: ErrorCorrectionLevel;
  mask: number;
  /** Codewords the error correction repaired. */
  corrected: number;
}

function readFormat(grid: Grid): { level: ErrorCorrectionLevel; mask: number } {
  let best: { level: ErrorCorrectionLevel; mask: number; distance: number } | undefined;
  for (const copy of formatPositions(grid.size)) {
    let word = 0;
    copy.forEach(([row, column], i) => {
      if (grid.dark[row * grid.size + column]) word |= 1 << i;
    });
    for (const level of LEVELS) {
      for (let mask = 0; mask < 8; mask++) {
        const distance = hammingDistance(word, formatWord(level, mask));
        if (best === undefined || distance < best.distance) best = { level, mask, distance };
      }
    }
  }
  // Valid format words are at least 7 bits apart: 3 wrong bits can still be told apart.
  if (best === undefined || best.distance > 3) throw new QrDecodeError('unreadable format information');
  return best;
}

export function decodeQrGrid(grid: Grid): DecodedQr {
  let version: number;
  try {
    version = versionOfSize(grid.size);
  } catch (error) {
    throw new QrDecodeError((error as Error).message);
  }
  const { level, mask } = readFormat(grid);
  const layout = layoutOf(version);
  const total = totalCodewords(version);
  const raw = new Uint8Array(total);
  for (let bit = 0; bit < total * 8; bit++) {
    const index = layout.dataOrder[bit];
    const value = grid.dark[index] !== maskInverts(mask, Math.floor(index / grid.size), index % grid.size);
    if (value) raw[bit >>> 3] |= 0x80 >>> (bit & 7);
  }

  // Undo the interleaving: data codewords column by column (short blocks end one early), then check codewords.
  const { eccPerBlock } = blockLayout(version, level);
  const lengths = blockDataLengths(version, level);
  const blocks = lengths.map((length) => new Uint8Array(length + eccPerBlock));
  let offset = 0;
  const longest = Math.max(...lengths);
  for (let i = 0; i < longest; i++) {
    lengths.forEach((length, b) => {
      if (i < length) blocks[b][i] = raw[offset++];
    });
  }
  for (let i = 0; i < eccPerBlock; i++) {
    lengths.forEach((length, b) => (blocks[b][length + i] = raw[offset++]));
  }

  let corrected = 0;
  const data: number[] = [];
  blocks.forEach((block, b) => {
    try {
      corrected += rsDecode(block, eccPerBlock);
    } catch (error) {
      throw new QrDecodeError(`block ${b}: ${(error as Error).message}`);
    }
    data.push(...block.subarray(0, lengths[b]));
  });
  return { bytes: readSegments(Uint8Array.from(data), version), version, level, mask, corrected };
}

/** Byte-mode segments up to the terminator; other modes are not written by our encoder and are refused. */
function readSegments(data: Uint8Array, version: number): Uint8Array {
  let position = 0;
  const available = data.length * 8;
  const read = (length: number) => {
    if (position + length > available) throw new QrDecodeError('data ends inside a segment');
    let value = 0;
    for (let i = 0; i < length; i++, position++) value = (value << 1) | ((data[position >>> 3] >>> (7 - (position & 7))) & 1);
    return value >>> 0;
  };
  const out: number[] = [];
  while (available - position >= 4) {
    const mode = read(4);
    if (mode === 0) break;
    if (mode !== 0b0100) throw new QrDecodeError(`unsupported segment mode ${mode.toString(2).padStart(4, '0')}`);
    const count = read(countBits(version));
    for (let i = 0; i < count; i++) out.push(read(8));
  }
  return Uint8Array.from(out);
}
