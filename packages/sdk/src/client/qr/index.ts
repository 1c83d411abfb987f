// QR codes in PNG files, the refund file's picture form, through maintained packages: `qrcode` builds the symbol,
// `fast-png` writes and reads the PNG (pure JavaScript, deflate by fflate: no node:zlib, so browsers run it too),
// `jsqr` finds and decodes the symbol (also in photos of a screen). Our own code is only glue no package offers:
// drawing the modules synchronously (qrcode writes PNGs only asynchronously and through Node or a canvas), turning
// every PNG colour type and bit depth into luminance on white, and refusing non-PNGs and oversized images up front.
import { convertIndexedToRgb, decode as decodePng, encode as encodePng, type DecodedPng } from 'fast-png';
import jsQRModule from 'jsqr';
import QRCode, { type QRCodeMaskPattern } from 'qrcode';

// jsqr is a CommonJS bundle whose types declare `export default`: an ES module gets its exports object.
const jsQR = jsQRModule.default;

export type ErrorCorrectionLevel = 'L' | 'M' | 'Q' | 'H';

/** A square of modules, row-major; `true` is dark. */
export interface Grid {
  size: number;
  dark: boolean[];
}

export interface QrSymbol extends Grid {
  version: number;
  level: ErrorCorrectionLevel;
  mask: number;
}

export interface EncodeOptions {
  level?: ErrorCorrectionLevel; // default M
  mask?: number; // default: the mask with the lowest penalty
}

export interface DecodedQr {
  bytes: Uint8Array;
  version: number;
}

/** 8-bit luminance, row-major. */
export interface GreyImage {
  width: number;
  height: number;
  pixels: Uint8Array;
}

export class PngError extends Error {}
export class QrDecodeError extends Error {}

export const QUIET_ZONE = 4;
const MAX_PIXELS = 50_000_000;
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
// The two level bits of the format word, as qrcode reports them.
const LEVEL_OF_BITS: Record<number, ErrorCorrectionLevel> = { 1: 'L', 0: 'M', 3: 'Q', 2: 'H' };

/** The QR symbol of `bytes` in byte mode: the smallest version that holds them at the chosen level. */
export function encodeQr(bytes: Uint8Array, options: EncodeOptions = {}): QrSymbol {
  const level = options.level ?? 'M';
  const { mask } = options;
  if (mask !== undefined && !(Number.isInteger(mask) && mask >= 0 && mask <= 7)) throw new RangeError(`no QR mask ${mask}: masks are 0 to 7`);
  let qr: QRCode.QRCode;
  try {
    qr = QRCode.create([{ data: bytes, mode: 'byte' }], { errorCorrectionLevel: level, maskPattern: mask as QRCodeMaskPattern | undefined });
  } catch (error) {
    if (/too big/.test((error as Error).message)) throw new RangeError(`${bytes.length} bytes do not fit in a QR code at level ${level}`);
    throw error;
  }
  const { size, data } = qr.modules;
  return { version: qr.version, level: LEVEL_OF_BITS[qr.errorCorrectionLevel.bit], mask: qr.maskPattern!, size, dark: Array.from(data, (bit) => bit === 1) };
}

/** Black modules on white with the quiet zone, at a whole number of pixels per module. */
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

/** An 8-bit greyscale PNG. */
export function writePng(image: GreyImage): Uint8Array {
  return encodePng({ width: image.width, height: image.height, data: image.pixels, depth: 8, channels: 1 });
}

/** The samples of a decoded PNG scaled to 0–255, one per channel; palette images as RGB(A). */
function samples8(png: DecodedPng): { data: ArrayLike<number>; channels: number } {
  if (png.palette !== undefined) return { data: convertIndexedToRgb(png), channels: png.palette[0].length };
  const { data, depth, channels, width, height } = png;
  if (depth === 8) return { data, channels };
  if (depth === 16) return { data: Uint8Array.from(data, (sample) => sample >> 8), channels };
  // 1, 2 or 4 bits (grey only): packed, each row starting on a byte.
  const out = new Uint8Array(width * height * channels);
  const perRow = width * channels;
  const rowBytes = Math.ceil((perRow * depth) / 8);
  const max = 2 ** depth - 1;
  for (let row = 0; row < height; row++) {
    for (let i = 0; i < perRow; i++) {
      const bit = i * depth;
      const value = (data[row * rowBytes + (bit >> 3)] >> (8 - depth - (bit & 7))) & max;
      out[row * perRow + i] = Math.round((value * 255) / max);
    }
  }
  return { data: out, channels };
}

/** Any PNG as RGBA with transparent parts shown on white (the page behind them). */
function readRgba(file: Uint8Array): { width: number; height: number; data: Uint8ClampedArray } {
  if (file.length < 8 || !PNG_SIGNATURE.every((b, i) => file[i] === b)) throw new PngError('not a PNG file');
  // IHDR comes first: refuse images too large to decode before they are allocated.
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  if (file.length >= 24 && String.fromCharCode(...file.subarray(12, 16)) === 'IHDR' && view.getUint32(16) * view.getUint32(20) > MAX_PIXELS) {
    throw new PngError(`unreasonable size ${view.getUint32(16)}×${view.getUint32(20)}`);
  }
  let png: DecodedPng;
  try {
    png = decodePng(file, { checkCrc: true });
  } catch (error) {
    const { message, cause } = error as Error;
    // Reading past the end (RangeError from the byte reader) is a file that stops before IEND.
    const early = error instanceof RangeError || /outside the bounds/i.test(message);
    throw new PngError(`corrupt PNG: ${early ? 'the file ends early' : cause instanceof Error ? `${message} ${cause.message}` : message}`);
  }
  const { width, height } = png;
  const { data: source, channels } = samples8(png);
  const data = new Uint8ClampedArray(width * height * 4);
  for (let p = 0; p < width * height; p++) {
    const at = p * channels;
    const [r, g, b] = channels >= 3 ? [source[at], source[at + 1], source[at + 2]] : [source[at], source[at], source[at]];
    const alpha = channels === 2 || channels === 4 ? source[at + channels - 1] : 255;
    for (const [c, value] of [r, g, b].entries()) data[p * 4 + c] = (value * alpha + 255 * (255 - alpha)) / 255;
    data[p * 4 + 3] = 255;
  }
  return { width, height, data };
}

/** Any PNG (every colour type, bit depth and interlacing) as 8-bit luminance on white. */
export function readPng(file: Uint8Array): GreyImage {
  const { width, height, data } = readRgba(file);
  const pixels = new Uint8Array(width * height);
  for (let i = 0; i < pixels.length; i++) pixels[i] = Math.round(0.299 * data[i * 4] + 0.587 * data[i * 4 + 1] + 0.114 * data[i * 4 + 2]);
  return { width, height, pixels };
}

function decodeRgba(width: number, height: number, data: Uint8ClampedArray): DecodedQr {
  let lo = 255;
  let hi = 0;
  for (let i = 0; i < data.length; i += 4) {
    const grey = 0.299 * data[i] + 0.587 * data[i + 1] + 0.114 * data[i + 2];
    if (grey < lo) lo = grey;
    if (grey > hi) hi = grey;
  }
  if (hi - lo < 64) throw new QrDecodeError('no contrast: the image holds no QR code');
  const found = jsQR(data, width, height);
  if (found === null) throw new QrDecodeError('no readable QR code in the image');
  return { bytes: Uint8Array.from(found.binaryData), version: found.version };
}

/** The content of a clean module grid (as drawn by `renderGrid`). */
export function decodeQrGrid(grid: Grid): DecodedQr {
  const image = renderGrid(grid);
  const data = new Uint8ClampedArray(image.pixels.length * 4);
  image.pixels.forEach((grey, i) => data.set([grey, grey, grey, 255], i * 4));
  return decodeRgba(image.width, image.height, data);
}

/** A PNG picture of a QR code holding `bytes` (UTF-8 for strings). */
export function qrPng(content: string | Uint8Array, options: EncodeOptions & { pixelsPerModule?: number } = {}): Uint8Array {
  const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
  return writePng(renderGrid(encodeQr(bytes, options), options.pixelsPerModule ?? 4));
}

/** The bytes of the QR code in a PNG picture: a rendering, a screenshot, or a photo of a screen. */
export function readQrPng(png: Uint8Array): Uint8Array {
  const { width, height, data } = readRgba(png);
  return decodeRgba(width, height, data).bytes;
}
