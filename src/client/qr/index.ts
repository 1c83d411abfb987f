// QR codes in PNG files, written and read without third-party packages: the refund file's picture form.
import { decodeQrGrid } from './decode.ts';
import { encodeQr, type EncodeOptions } from './encode.ts';
import { gridFromImage, renderGrid } from './image.ts';
import { readPng, writePng } from './png.ts';

export { encodeQr, type QrSymbol, type EncodeOptions } from './encode.ts';
export { decodeQrGrid, QrDecodeError, type DecodedQr } from './decode.ts';
export { gridFromImage, renderGrid, QrLocateError } from './image.ts';
export { readPng, writePng, PngError, crc32, type GreyImage } from './png.ts';
export type { Grid } from './matrix.ts';
export type { ErrorCorrectionLevel } from './tables.ts';

/** A PNG picture of a QR code holding `bytes` (UTF-8 for strings). */
export function qrPng(content: string | Uint8Array, options: EncodeOptions & { pixelsPerModule?: number } = {}): Buffer {
  const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
  return writePng(renderGrid(encodeQr(bytes, options), options.pixelsPerModule ?? 4));
}

/** The bytes of the QR code in a PNG picture. */
export function readQrPng(png: Uint8Array): Uint8Array {
  return decodeQrGrid(gridFromImage(readPng(png))).bytes;
}
