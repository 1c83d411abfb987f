// The geometry of a QR symbol, shared by the encoder and the decoder: function patterns (finders, timing,
// alignment, reserved format and version areas), the zigzag order data modules are filled in, the eight
// data masks, and where the format and version words sit.
import { alignmentCentres, sizeOf } from './tables.ts';

/** A square of modules, row-major; `true` is dark. */
export interface Grid {
  size: number;
  dark: boolean[]; // dark[row * size + column]
}

export interface Layout {
  version: number;
  size: number;
  /** Module values of the function patterns (format and version areas are left light here). */
  pattern: Grid;
  /** true where a module belongs to a function pattern or a reserved area. */
  reserved: boolean[];
  /** Data modules as row * size + column, in the order codeword bits fill them. */
  dataOrder: number[];
}

const layouts = new Map<number, Layout>();

export function layoutOf(version: number): Layout {
  const cached = layouts.get(version);
  if (cached) return cached;
  const size = sizeOf(version);
  const dark = new Array<boolean>(size * size).fill(false);
  const reserved = new Array<boolean>(size * size).fill(false);
  const set = (row: number, column: number, value: boolean) => {
    if (row < 0 || column < 0 || row >= size || column >= size) return;
    dark[row * size + column] = value;
    reserved[row * size + column] = true;
  };

  // Finder patterns with their light separators: rings at Chebyshev distance 0–1 and 3 dark, 2 and 4 light.
  for (const [top, left] of [[0, 0], [0, size - 7], [size - 7, 0]]) {
    for (let dr = -1; dr <= 7; dr++) {
      for (let dc = -1; dc <= 7; dc++) {
        const distance = Math.max(Math.abs(dr - 3), Math.abs(dc - 3));
        set(top + dr, left + dc, distance !== 2 && distance !== 4);
      }
    }
  }
  // Timing patterns.
  for (let i = 8; i < size - 8; i++) {
    set(6, i, i % 2 === 0);
    set(i, 6, i % 2 === 0);
  }
  // Alignment patterns, except where they would overlap a finder.
  const centres = alignmentCentres(version);
  for (const row of centres) {
    for (const column of centres) {
      const nearFinder = (row === 6 && column === 6) || (row === 6 && column === size - 7) || (row === size - 7 && column === 6);
      if (nearFinder) continue;
      for (let dr = -2; dr <= 2; dr++) {
        for (let dc = -2; dc <= 2; dc++) set(row + dr, column + dc, Math.max(Math.abs(dr), Math.abs(dc)) !== 1);
      }
    }
  }
  // Format areas (filled later) and the always-dark module.
  for (const [row, column] of formatPositions(size).flat()) set(row, column, false);
  set(size - 8, 8, true);
  if (version >= 7) for (const [row, column] of versionPositions(size).flat()) set(row, column, false);

  // Zigzag: two-column strips from the right, alternately upwards and downwards, skipping the timing column.
  const dataOrder: number[] = [];
  let upwards = true;
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    for (let step = 0; step < size; step++) {
      const row = upwards ? size - 1 - step : step;
      for (const column of [right, right - 1]) {
        if (!reserved[row * size + column]) dataOrder.push(row * size + column);
      }
    }
    upwards = !upwards;
  }

  const layout = { version, size, pattern: { size, dark }, reserved, dataOrder };
  layouts.set(version, layout);
  return layout;
}

/**
 * Positions [row, column] of the 15 format bits, least significant first, for each of the two copies:
 * around the top-left finder, and split between the top-right and bottom-left finders.
 */
export function formatPositions(size: number): [number, number][][] {
  const first: [number, number][] = [];
  for (let i = 0; i <= 5; i++) first.push([i, 8]);
  first.push([7, 8], [8, 8], [8, 7]);
  for (let i = 9; i < 15; i++) first.push([8, 14 - i]);
  const second: [number, number][] = [];
  for (let i = 0; i < 8; i++) second.push([8, size - 1 - i]);
  for (let i = 8; i < 15; i++) second.push([size - 15 + i, 8]);
  return [first, second];
}

/** Positions of the 18 version bits, least significant first: above the bottom-left finder and left of the top-right one. */
export function versionPositions(size: number): [number, number][][] {
  const bottomLeft: [number, number][] = [];
  const topRight: [number, number][] = [];
  for (let i = 0; i < 18; i++) {
    const a = size - 11 + (i % 3);
    const b = Math.floor(i / 3);
    bottomLeft.push([a, b]);
    topRight.push([b, a]);
  }
  return [bottomLeft, topRight];
}

/** Whether data mask `mask` inverts the module at (row, column). */
export function maskInverts(mask: number, row: number, column: number): boolean {
  switch (mask) {
    case 0:
      return (row + column) % 2 === 0;
    case 1:
      return row % 2 === 0;
    case 2:
      return column % 3 === 0;
    case 3:
      return (row + column) % 3 === 0;
    case 4:
      return (Math.floor(row / 2) + Math.floor(column / 3)) % 2 === 0;
    case 5:
      return ((row * column) % 2) + ((row * column) % 3) === 0;
    case 6:
      return (((row * column) % 2) + ((row * column) % 3)) % 2 === 0;
    case 7:
      return (((row + column) % 2) + ((row * column) % 3)) % 2 === 0;
    default:
      throw new RangeError(`no data mask ${mask}`);
  }
}

/** Codewords a version holds in total (data and error correction). */
export function totalCodewords(version: number): number {
  return Math.floor(layoutOf(version).dataOrder.length / 8);
}
