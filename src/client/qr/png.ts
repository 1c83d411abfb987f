// Minimal PNG: writes greyscale images (bit depth 1 or 8), reads the non-interlaced PNGs most tools write
// (greyscale, grey+alpha, RGB, RGBA, palette; bit depths 1–8, and 16) into 8-bit luminance.
import { deflateSync, inflateSync } from 'node:zlib';

const SIGNATURE = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

export class PngError extends Error {}

/** 8-bit luminance, row-major. */
export interface GreyImage {
  width: number;
  height: number;
  pixels: Uint8Array;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  out.set(data, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** Encodes a black-and-white image (pixels 0 or 255) as a 1-bit greyscale PNG, anything else as 8-bit. */
export function writePng(image: GreyImage): Buffer {
  const { width, height, pixels } = image;
  const bilevel = pixels.every((p) => p === 0 || p === 255);
  const rowBytes = bilevel ? Math.ceil(width / 8) : width;
  const raw = Buffer.alloc((rowBytes + 1) * height); // filter byte 0 (None) before each row
  for (let y = 0; y < height; y++) {
    const start = y * (rowBytes + 1) + 1;
    for (let x = 0; x < width; x++) {
      const value = pixels[y * width + x];
      if (!bilevel) raw[start + x] = value;
      else if (value === 255) raw[start + (x >>> 3)] |= 0x80 >>> (x & 7);
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = bilevel ? 1 : 8; // bit depth
  header[9] = 0; // colour type: greyscale
  return Buffer.concat([Buffer.from(SIGNATURE), chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', new Uint8Array(0))]);
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

export function readPng(file: Uint8Array): GreyImage {
  const bytes = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  if (bytes.length < 8 || !SIGNATURE.every((b, i) => bytes[i] === b)) throw new PngError('not a PNG file');
  let offset = 8;
  let header: Buffer | undefined;
  let palette: Buffer | undefined;
  const data: Buffer[] = [];
  while (offset + 12 <= bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    if (offset + 12 + length > bytes.length) throw new PngError(`truncated ${type} chunk`);
    const body = bytes.subarray(offset + 8, offset + 8 + length);
    if (crc32(bytes.subarray(offset + 4, offset + 8 + length)) !== bytes.readUInt32BE(offset + 8 + length)) {
      throw new PngError(`bad CRC in ${type} chunk`);
    }
    if (type === 'IHDR') header = body;
    else if (type === 'PLTE') palette = body;
    else if (type === 'IDAT') data.push(body);
    else if (type === 'IEND') break;
    offset += 12 + length;
  }
  if (header === undefined || header.length < 13) throw new PngError('no IHDR chunk');
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  const depth = header[8];
  const colour = header[9];
  if (header[12] !== 0) throw new PngError('interlaced PNGs are not supported');
  const channels = CHANNELS[colour];
  if (channels === undefined || ![1, 2, 4, 8, 16].includes(depth)) throw new PngError(`unsupported PNG format (colour ${colour}, depth ${depth})`);
  if (colour === 3 && palette === undefined) throw new PngError('palette image without PLTE');
  if (width === 0 || height === 0 || width * height > 50_000_000) throw new PngError(`unreasonable size ${width}×${height}`);

  let inflated: Buffer;
  try {
    inflated = inflateSync(Buffer.concat(data));
  } catch (error) {
    throw new PngError(`corrupt image data: ${(error as Error).message}`);
  }
  const bitsPerPixel = channels * depth;
  const rowBytes = Math.ceil((width * bitsPerPixel) / 8);
  const stride = Math.max(1, bitsPerPixel >>> 3); // bytes to the same channel of the previous pixel
  if (inflated.length < (rowBytes + 1) * height) throw new PngError('image data is too short');
  const rows = unfilter(inflated, rowBytes, height, stride);

  const pixels = new Uint8Array(width * height);
  const maxSample = (1 << Math.min(depth, 8)) - 1;
  for (let y = 0; y < height; y++) {
    const row = rows.subarray(y * rowBytes, (y + 1) * rowBytes);
    const sample = (index: number): number => {
      if (depth === 16) return row[index * 2];
      if (depth === 8) return row[index];
      const bit = index * depth;
      return (row[bit >>> 3] >>> (8 - depth - (bit & 7))) & maxSample;
    };
    for (let x = 0; x < width; x++) {
      const base = x * channels;
      let r: number, g: number, b: number, alpha = 255;
      if (colour === 3) {
        const entry = sample(x) * 3;
        [r, g, b] = [palette![entry] ?? 0, palette![entry + 1] ?? 0, palette![entry + 2] ?? 0];
      } else {
        const scale = depth >= 8 ? 1 : 255 / maxSample;
        r = sample(base) * scale;
        g = colour === 2 || colour === 6 ? sample(base + 1) : r;
        b = colour === 2 || colour === 6 ? sample(base + 2) : r;
        if (colour === 4) alpha = sample(base + 1);
        if (colour === 6) alpha = sample(base + 3);
      }
      const luminance = 0.299 * r + 0.587 * g + 0.114 * b;
      // Transparent pixels show the (white) page behind them.
      pixels[y * width + x] = Math.round((luminance * alpha + 255 * (255 - alpha)) / 255);
    }
  }
  return { width, height, pixels };
}

function unfilter(data: Buffer, rowBytes: number, height: number, stride: number): Uint8Array {
  const out = new Uint8Array(rowBytes * height);
  for (let y = 0; y < height; y++) {
    const filter = data[y * (rowBytes + 1)];
    const input = data.subarray(y * (rowBytes + 1) + 1, (y + 1) * (rowBytes + 1));
    const row = out.subarray(y * rowBytes, (y + 1) * rowBytes);
    const above = y > 0 ? out.subarray((y - 1) * rowBytes, y * rowBytes) : new Uint8Array(rowBytes);
    for (let i = 0; i < rowBytes; i++) {
      const left = i >= stride ? row[i - stride] : 0;
      const up = above[i];
      const upLeft = i >= stride ? above[i - stride] : 0;
      let predictor: number;
      switch (filter) {
        case 0:
          predictor = 0;
          break;
        case 1:
          predictor = left;
          break;
        case 2:
          predictor = up;
          break;
        case 3:
          predictor = (left + up) >>> 1;
          break;
        case 4: {
          const p = left + up - upLeft;
          const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
          predictor = pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
          break;
        }
        default:
          throw new PngError(`unknown row filter ${filter}`);
      }
      row[i] = (input[i] + predictor) & 0xff;
    }
  }
  return out;
}
