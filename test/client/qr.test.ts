// The QR code and PNG codecs behind refund pictures: checked against published QR facts (Reed–Solomon
// codewords, format and version words, alignment positions, capacities), then round-tripped through PNG at
// every version, level and mask, through other PNG encodings, and with damaged modules.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { decodeQrGrid, encodeQr, gridFromImage, qrPng, readPng, readQrPng, renderGrid, writePng, crc32 } from '../../src/client/qr/index.ts';
import { rsDecode, rsEncode } from '../../src/client/qr/reed-solomon.ts';
import { alignmentCentres, formatWord, versionWord } from '../../src/client/qr/tables.ts';
import { dataCodewords } from '../../src/client/qr/encode.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('QR building blocks match the standard', () => {
  test('Reed–Solomon codewords of the "HELLO WORLD" 1-M example', () => {
    const data = Uint8Array.from([32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17]);
    assert.deepEqual([...rsEncode(data, 10)], [196, 35, 39, 119, 235, 215, 231, 226, 93, 23]);
  });

  test('Reed–Solomon decoding corrects up to half the check codewords and refuses more', () => {
    const data = Uint8Array.from({ length: 40 }, (_, i) => (i * 37 + 11) & 0xff);
    const block = Uint8Array.from([...data, ...rsEncode(data, 16)]);
    const damaged = block.slice();
    for (const [i, flip] of [[0, 0xff], [5, 1], [17, 0x80], [33, 0x5a], [41, 3], [50, 0x11], [54, 0xc3], [55, 7]]) damaged[i] ^= flip;
    assert.equal(rsDecode(damaged, 16), 8);
    assert.deepEqual(damaged, block);
    const hopeless = block.slice();
    for (let i = 0; i < 12; i++) hopeless[i * 4] ^= 0x42;
    assert.throws(() => rsDecode(hopeless, 16));
  });

  test('format and version words', () => {
    const bits = (value: number, width: number) => value.toString(2).padStart(width, '0');
    assert.equal(bits(formatWord('L', 0), 15), '111011111000100');
    assert.equal(bits(formatWord('L', 4), 15), '110011000101111');
    assert.equal(bits(formatWord('M', 0), 15), '101010000010010');
    assert.equal(bits(formatWord('H', 7), 15), '000100000111011');
    assert.equal(bits(versionWord(7), 18), '000111110010010100');
    assert.equal(bits(versionWord(40), 18), '101000110001101001');
  });

  test('alignment pattern positions and data capacities', () => {
    assert.deepEqual(alignmentCentres(1), []);
    assert.deepEqual(alignmentCentres(2), [6, 18]);
    assert.deepEqual(alignmentCentres(7), [6, 22, 38]);
    assert.deepEqual(alignmentCentres(15), [6, 26, 48, 70]);
    assert.deepEqual(alignmentCentres(32), [6, 34, 60, 86, 112, 138]);
    assert.deepEqual(alignmentCentres(36), [6, 24, 50, 76, 102, 128, 154]);
    // Data codewords from the standard's capacity table.
    assert.equal(dataCodewords(1, 'M'), 16);
    assert.equal(dataCodewords(5, 'Q'), 62);
    assert.equal(dataCodewords(10, 'M'), 216);
    assert.equal(dataCodewords(20, 'L'), 861);
    assert.equal(dataCodewords(25, 'M'), 1000);
    assert.equal(dataCodewords(40, 'H'), 1276);
  });

  test('CRC32 of "123456789"', () => {
    assert.equal(crc32(bytes('123456789')), 0xcbf43926);
  });
});

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
      assert.equal(decoded.corrected, 0);
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
        const decoded = decodeQrGrid(encodeQr(content, { level, mask }));
        assert.deepEqual(decoded.bytes, content);
        assert.equal(decoded.level, level);
        assert.equal(decoded.mask, mask);
      }
    }
  });

  test('through a PNG file, at several scales', () => {
    const text = JSON.stringify({ id: 'x', privateKey: 'ab'.repeat(32), tree: 'cd'.repeat(90) });
    for (const pixelsPerModule of [1, 3, 4, 7]) {
      const png = qrPng(text, { pixelsPerModule });
      assert.deepEqual(png.subarray(0, 8), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
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
    assert.ok(decoded.corrected > 0);
  });

  test('an 8-bit RGBA PNG with Paeth-filtered rows, as other tools write, is read too', () => {
    const content = bytes('{"id":"ZZZ"}');
    const image = renderGrid(encodeQr(content), 5);
    const { width, height } = image;
    const channels = 4;
    const rowBytes = width * channels;
    const rgba = new Uint8Array(rowBytes * height);
    for (let i = 0; i < width * height; i++) rgba.set([image.pixels[i], image.pixels[i], image.pixels[i], 255], i * 4);
    // Paeth filter (type 4) on every row.
    const raw = Buffer.alloc((rowBytes + 1) * height);
    for (let y = 0; y < height; y++) {
      raw[y * (rowBytes + 1)] = 4;
      for (let x = 0; x < rowBytes; x++) {
        const at = (yy: number, xx: number) => (yy < 0 || xx < 0 ? 0 : rgba[yy * rowBytes + xx]);
        const a = at(y, x - channels);
        const b = at(y - 1, x);
        const c = at(y - 1, x - channels);
        const p = a + b - c;
        const predictor = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
        raw[y * (rowBytes + 1) + 1 + x] = (rgba[y * rowBytes + x] - predictor) & 0xff;
      }
    }
    const header = Buffer.alloc(13);
    header.writeUInt32BE(width, 0);
    header.writeUInt32BE(height, 4);
    header[8] = 8;
    header[9] = 6;
    const chunk = (type: string, data: Uint8Array) => {
      const out = Buffer.alloc(12 + data.length);
      out.writeUInt32BE(data.length, 0);
      out.write(type, 4, 'latin1');
      out.set(data, 8);
      out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
      return out;
    };
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', new Uint8Array())]);
    assert.deepEqual(readPng(png).pixels, image.pixels);
    assert.deepEqual(readQrPng(png), content);
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
    assert.throws(() => gridFromImage({ width: 30, height: 30, pixels: Uint8Array.from({ length: 900 }, (_, i) => (i % 30 < 15 ? 0 : 255)) }));
  });
});
