// The QR and PNG glue behind refund pictures (qrcode, jsqr, fast-png): round trips at every version, level and
// mask and through PNG at several scales, PNGs of every colour type and bit depth as other tools write them (pngjs,
// fast-png), damaged modules, and refusals with a reason.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { encode as encodeFastPng } from 'fast-png';
import { PNG } from 'pngjs';
import { decodeQrGrid, encodeQr, qrPng, readPng, readQrPng, renderGrid, writePng } from '../../src/client/qr/index.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('QR round trips', () => {
  test('every length from 0 to 900 bytes picks the smallest version and decodes back', () => {
    let previousVersion = 1;
    for (let length = 0; length <= 900; length += 7) {
      const content = Uint8Array.from({ length }, (_, i) => (i * 131 + length) & 0xff);
      const symbol = encodeQr(content, { level: 'M' });
      assert.ok(symbol.version >= previousVersion);
      previousVersion = symbol.version;
      const decoded = decodeQrGrid(symbol);
      assert.deepEqual(decoded.bytes, content, `length ${length}, version ${symbol.version}`);
      assert.equal(decoded.version, symbol.version);
    }
    // Byte capacities at level M: version 23 holds 857 bytes, version 24 holds 911.
    assert.equal(encodeQr(new Uint8Array(857)).version, 23);
    assert.equal(encodeQr(new Uint8Array(858)).version, 24);
    assert.equal(encodeQr(new Uint8Array(911)).version, 24);
  });

  test('every level and every mask', () => {
    const content = bytes('{"id":"AbCdEfGhIjKl","currency":"BTC"}'.repeat(4));
    for (const level of ['L', 'M', 'Q', 'H'] as const) {
      for (let mask = 0; mask < 8; mask++) {
        const symbol = encodeQr(content, { level, mask });
        assert.equal(symbol.level, level);
        assert.equal(symbol.mask, mask);
        assert.deepEqual(decodeQrGrid(symbol).bytes, content);
      }
    }
  });

  test('through a PNG file, at several scales', () => {
    const text = JSON.stringify({ id: 'x', privateKey: 'ab'.repeat(32), tree: 'cd'.repeat(90) });
    for (const pixelsPerModule of [1, 3, 4, 7]) {
      const png = qrPng(text, { pixelsPerModule });
      assert.deepEqual(png.subarray(0, 8), Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      assert.equal(new TextDecoder().decode(readQrPng(png)), text);
    }
  });

  test('damaged modules are corrected', () => {
    const content = bytes('refund me '.repeat(30));
    const symbol = encodeQr(content, { level: 'M' });
    const dark = symbol.dark.slice();
    // Flip a few data modules far from the finder patterns.
    const middle = Math.floor(symbol.size / 2);
    for (let i = 0; i < 6; i++) dark[(middle + i) * symbol.size + middle - i] = !dark[(middle + i) * symbol.size + middle - i];
    const decoded = decodeQrGrid({ size: symbol.size, dark });
    assert.deepEqual(decoded.bytes, content);
  });

  test('an 8-bit RGBA PNG with Paeth-filtered rows, as other tools write, is read too, transparent parts as white', () => {
    const content = bytes('{"id":"ZZZ"}');
    const image = renderGrid(encodeQr(content), 5);
    const { width, height } = image;
    const opaque = new PNG({ width, height });
    const transparent = new PNG({ width, height });
    for (let i = 0; i < width * height; i++) {
      const grey = image.pixels[i];
      opaque.data.set([grey, grey, grey, 255], i * 4);
      // Light modules as transparent black, as some tools write them.
      transparent.data.set(grey === 0 ? [0, 0, 0, 255] : [0, 0, 0, 0], i * 4);
    }
    for (const picture of [opaque, transparent]) {
      const png = PNG.sync.write(picture, { colorType: 6, filterType: 4 });
      assert.equal(png[25], 6); // colour type RGBA in IHDR
      assert.deepEqual(readPng(png).pixels, image.pixels);
      assert.deepEqual(readQrPng(png), content);
    }
  });

  test('every colour type and bit depth: grey, grey+alpha, RGB, RGBA at 8 bits, grey at 1, 2, 4 and 16 bits, palettes', () => {
    const content = bytes('{"id":"Depths"}');
    const image = renderGrid(encodeQr(content), 3);
    const { width, height } = image;
    const pictures: { name: string; png: Uint8Array }[] = [];
    for (const colorType of [0, 2, 4, 6] as const) {
      const picture = new PNG({ width, height });
      image.pixels.forEach((grey, i) => picture.data.set([grey, grey, grey, 255], i * 4));
      pictures.push({ name: `pngjs colour type ${colorType}`, png: PNG.sync.write(picture, { colorType, inputColorType: 6, bitDepth: 8 }) });
    }
    // Rows of `depth`-bit samples packed from the high bit, each row starting on a byte (as the PNG format packs them).
    const packed = (depth: number, sample: (grey: number) => number): Uint8Array => {
      const rowBytes = Math.ceil((width * depth) / 8);
      const data = new Uint8Array(rowBytes * height);
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) data[y * rowBytes + ((x * depth) >> 3)] |= sample(image.pixels[y * width + x]) << (8 - depth - ((x * depth) & 7));
      }
      return data;
    };
    for (const depth of [1, 2, 4] as const) {
      pictures.push({ name: `grey at ${depth} bits`, png: encodeFastPng({ width, height, depth, channels: 1, data: packed(depth, (grey) => (grey === 0 ? 0 : 2 ** depth - 1)) }) });
      pictures.push({
        name: `palette at ${depth} bits`,
        png: encodeFastPng({ width, height, depth, channels: 1, palette: [[255, 255, 255], [0, 0, 0]], data: packed(depth, (grey) => (grey === 0 ? 1 : 0)) }),
      });
    }
    pictures.push({ name: 'grey at 16 bits', png: encodeFastPng({ width, height, depth: 16, channels: 1, data: Uint16Array.from(image.pixels, (grey) => grey * 257) }) });
    for (const { name, png } of pictures) {
      assert.deepEqual(readPng(png).pixels, image.pixels, name);
      assert.deepEqual(readQrPng(png), content, name);
    }
  });

  test('grey images round-trip through the PNG writer unchanged', () => {
    const image = { width: 3, height: 2, pixels: Uint8Array.from([0, 17, 255, 128, 64, 1]) };
    assert.deepEqual(readPng(writePng(image)), image);
  });

  test('what is not a readable QR PNG is refused with a reason', () => {
    assert.throws(() => readPng(Buffer.from('{"id":1}')), /not a PNG/);
    const png = qrPng('hello');
    const corrupt = Buffer.from(png);
    corrupt[40] ^= 0xff;
    assert.throws(() => readQrPng(corrupt), /CRC|corrupt/);
    const blank = writePng({ width: 50, height: 50, pixels: new Uint8Array(2500).fill(255) });
    assert.throws(() => readQrPng(blank), /no contrast|blank/);
    const halves = writePng({ width: 30, height: 30, pixels: Uint8Array.from({ length: 900 }, (_, i) => (i % 30 < 15 ? 0 : 255)) });
    assert.throws(() => readQrPng(halves), /no readable QR code/);
    assert.throws(() => readQrPng(png.subarray(0, png.length / 2)), /corrupt PNG: the file ends early/);
  });
});
