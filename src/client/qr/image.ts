// Between QR symbols and pictures: render a symbol with its quiet zone at a whole number of pixels per
// module, and find the module grid in a clean rendering (ours, or a screenshot of it at any scale) from the
// top-left finder pattern, whose first row is seven dark modules.
import type { Grid } from './matrix.ts';
import type { GreyImage } from './png.ts';

export const QUIET_ZONE = 4;

export function renderGrid(grid: Grid, pixelsPerModule = 4): GreyImage {
  const side = (grid.size + 2 * QUIET_ZONE) * pixelsPerModule;
  const pixels = new Uint8Array(side * side).fill(255);
  for (let row = 0; row < grid.size; row++) {
    for (let column = 0; column < grid.size; column++) {
      if (!grid.dark[row * grid.size + column]) continue;
      const top = (row + QUIET_ZONE) * pixelsPerModule;
      const left = (column + QUIET_ZONE) * pixelsPerModule;
      for (let y = 0; y < pixelsPerModule; y++) pixels.fill(0, (top + y) * side + left, (top + y) * side + left + pixelsPerModule);
    }
  }
  return { width: side, height: side, pixels };
}

export class QrLocateError extends Error {}

/** The module grid of an upright, unskewed QR symbol on a light background. */
export function gridFromImage(image: GreyImage): Grid {
  const { width, height, pixels } = image;
  let lo = 255;
  let hi = 0;
  for (const p of pixels) {
    if (p < lo) lo = p;
    if (p > hi) hi = p;
  }
  if (hi - lo < 64) throw new QrLocateError('no contrast: the image holds no QR code');
  const threshold = (lo + hi) / 2;
  const dark = (x: number, y: number) => pixels[y * width + x] < threshold;

  // The top edge of the symbol: the first row with a dark pixel; its first dark run is the finder's top row.
  let top = -1;
  let left = -1;
  for (let y = 0; y < height && top < 0; y++) {
    for (let x = 0; x < width; x++) {
      if (dark(x, y)) {
        top = y;
        left = x;
        break;
      }
    }
  }
  if (top < 0) throw new QrLocateError('the image is blank');
  let run = 0;
  while (left + run < width && dark(left + run, top)) run++;
  const roughModule = run / 7;
  // The right edge: the last dark pixel on that row belongs to the top-right finder.
  let right = width - 1;
  while (right > left && !dark(right, top)) right--;
  const size = Math.round((right - left + 1) / roughModule);
  if (size < 21 || (size - 17) % 4 !== 0) throw new QrLocateError(`found ${size} modules per side, which is no QR code size`);
  const module = (right - left + 1) / size;
  if (top + size * module > height + module / 2) throw new QrLocateError('the symbol runs off the image');

  const cells = new Array<boolean>(size * size);
  for (let row = 0; row < size; row++) {
    for (let column = 0; column < size; column++) {
      const x = Math.min(width - 1, Math.floor(left + (column + 0.5) * module));
      const y = Math.min(height - 1, Math.floor(top + (row + 0.5) * module));
      cells[row * size + column] = dark(x, y);
    }
  }
  return { size, dark: cells };
}
