// Refund files in the spec's format: saved as JSON and as a PNG QR code of the same JSON, read back from
// .json, .png and any other name, private to their owner, and checked before anything is built from them.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hex } from '@scure/base';
import { swapScript } from 'boltz-core';
import { PNG } from 'pngjs';
import {
  FileClientStore,
  RefundFileError,
  VerificationError,
  newKeyPair,
  newPreimage,
  parseRefundFile,
  parseRefundFileBytes,
  readQrPng,
  readRefundFile,
  refundFileOf,
  refundFilePng,
  refundableFromFile,
  serializeTree,
  submarineTree,
  writeRefundFiles,
  type RefundFile,
  type SubmarineRecord,
} from '../../src/client/node.ts';
import { liquidSwapOutput, serializeLiquidTree } from '../../src/chains/liquid/htlc.ts';

/**
 * A phone's photo of the refund PNG on a screen: enlarged 1.3× with bilinear interpolation, turned 4°, dimmed
 * (black 45, white 200), pasted off-centre on a larger grey background with a light gradient, blurred 3×3, with
 * noise up to ±10 and a blue cast, as an RGB PNG.
 */
function photoOfScreen(png: Uint8Array): Buffer {
  const source = PNG.sync.read(Buffer.from(png));
  const grey = (x: number, y: number) => source.data[(y * source.width + x) * 4];
  const width = 1000;
  const height = 950;
  const [scale, angle] = [1.3, (4 * Math.PI) / 180];
  const [centreX, centreY] = [520, 470];
  const photo = new Float64Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      // Back from the photo to the source picture: undo the move, the turn and the enlargement.
      const dx = x - centreX;
      const dy = y - centreY;
      const u = (Math.cos(angle) * dx + Math.sin(angle) * dy) / scale + source.width / 2;
      const v = (-Math.sin(angle) * dx + Math.cos(angle) * dy) / scale + source.height / 2;
      const [u0, v0] = [Math.floor(u), Math.floor(v)];
      if (u0 < 0 || v0 < 0 || u0 + 1 >= source.width || v0 + 1 >= source.height) {
        photo[y * width + x] = 110 + (40 * x) / width; // the background
        continue;
      }
      const [fu, fv] = [u - u0, v - v0];
      const value =
        grey(u0, v0) * (1 - fu) * (1 - fv) + grey(u0 + 1, v0) * fu * (1 - fv) + grey(u0, v0 + 1) * (1 - fu) * fv + grey(u0 + 1, v0 + 1) * fu * fv;
      photo[y * width + x] = 45 + (value * (200 - 45)) / 255;
    }
  }
  let seed = 12345;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const out = new PNG({ width, height, colorType: 2 });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let sum = 0;
      let count = 0;
      for (let j = -1; j <= 1; j++) {
        for (let i = -1; i <= 1; i++) {
          if (x + i < 0 || y + j < 0 || x + i >= width || y + j >= height) continue;
          sum += photo[(y + j) * width + x + i];
          count++;
        }
      }
      const value = Math.max(0, Math.min(255, Math.round(sum / count + (random() - 0.5) * 20)));
      // A slightly blue cast, as screens photograph.
      out.data.set([value, value, Math.min(255, value + 10), 255], (y * width + x) * 4);
    }
  }
  return PNG.sync.write(out, { colorType: 2 });
}

function taprootRecord(): SubmarineRecord {
  const client = newKeyPair();
  const service = newKeyPair();
  const { preimageHash } = newPreimage();
  const tree = submarineTree(preimageHash, service.publicKey, client.publicKey, 1234);
  return {
    version: 1,
    id: 'RfNdTst12345',
    type: 'submarine',
    serviceUrl: 'http://127.0.0.1:9001',
    network: 'regtest',
    currency: 'BTC',
    createdAt: new Date().toISOString(),
    privateKey: hex.encode(client.privateKey),
    publicKey: hex.encode(client.publicKey),
    servicePublicKey: hex.encode(service.publicKey),
    preimageHash: hex.encode(preimageHash),
    swapTree: serializeTree(tree),
    timeoutBlockHeight: 1234,
    lockupAddress: 'bcrt1p-not-needed-here',
    history: [],
    invoice: 'lnbcrt1',
    invoiceAmount: 1,
    expectedAmount: 1,
    acceptZeroConf: false,
  };
}

describe('refund files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-refund-file-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));

  test('a Taproot swap round-trips through JSON and PNG, and both files are owner-only', () => {
    const file = refundFileOf(taprootRecord());
    assert.deepEqual(Object.keys(file).sort(), ['claimPublicKey', 'currency', 'id', 'privateKey', 'serverPublicKey', 'swapTree', 'timeoutBlockHeight']);
    const paths = writeRefundFiles(file, join(dir, file.id));
    assert.equal(statSync(paths.json).mode & 0o777, 0o600);
    assert.equal(statSync(paths.png).mode & 0o777, 0o600);
    assert.deepEqual(readRefundFile(paths.json), file);
    assert.deepEqual(readRefundFile(paths.png), file);
    // The picture holds exactly the JSON of the file.
    assert.deepEqual(JSON.parse(new TextDecoder().decode(readQrPng(readFileSync(paths.png)))), file);
  });

  test('a photo of the refund picture on a screen (scaled, turned, blurred, noisy, on a background) is read back', () => {
    const file = refundFileOf(taprootRecord());
    const photo = photoOfScreen(refundFilePng(file));
    writeFileSync(join(dir, 'photo.png'), photo);
    assert.deepEqual(readRefundFile(join(dir, 'photo.png')), file);
    assert.deepEqual(parseRefundFileBytes(photo), file);
  });

  test('any other extension is read as raw JSON, and a PNG under another name by its signature', () => {
    const file = refundFileOf(taprootRecord());
    const paths = writeRefundFiles(file, join(dir, 'other'));
    writeFileSync(join(dir, 'refund.txt'), readFileSync(paths.json));
    writeFileSync(join(dir, 'refund'), readFileSync(paths.json));
    writeFileSync(join(dir, 'picture.dat'), readFileSync(paths.png));
    assert.deepEqual(readRefundFile(join(dir, 'refund.txt')), file);
    assert.deepEqual(readRefundFile(join(dir, 'refund')), file);
    assert.deepEqual(readRefundFile(join(dir, 'picture.dat')), file);
  });

  test('a legacy refund file with a redeemScript (the spec table exactly) is accepted', () => {
    const client = newKeyPair();
    const redeemScript = swapScript(newPreimage().preimageHash, newKeyPair().publicKey, client.publicKey, 777);
    const legacy = { id: 'abc123', currency: 'BTC', redeemScript: hex.encode(redeemScript), privateKey: hex.encode(client.privateKey), timeoutBlockHeight: 777 };
    writeFileSync(join(dir, 'legacy.json'), JSON.stringify(legacy));
    assert.deepEqual(readRefundFile(join(dir, 'legacy.json')), legacy);
    const refundable = refundableFromFile(legacy);
    assert.ok(refundable.legacy);
    assert.equal(refundable.timeoutBlockHeight, 777);
  });

  test('files that cannot refund anything are refused with the reason', () => {
    const good = refundFileOf(taprootRecord()) as unknown as Record<string, unknown>;
    const without = (key: string) => Object.fromEntries(Object.entries(good).filter(([k]) => k !== key));
    const cases: [unknown, RegExp][] = [
      [[], /JSON object/],
      [without('id'), /no swap id/],
      [without('currency'), /no currency/],
      [{ ...good, privateKey: 'zz' }, /privateKey is not 32 bytes of hex/],
      [{ ...good, timeoutBlockHeight: -1 }, /timeoutBlockHeight/],
      [without('swapTree'), /neither a swapTree nor a redeemScript/],
      [{ ...without('serverPublicKey'), claimPublicKey: undefined }, /service's key/],
      [{ ...good, claimPublicKey: hex.encode(newKeyPair().publicKey) }, /disagree/],
      [{ ...good, swapTree: { claimLeaf: { version: 192, output: 'zz' }, refundLeaf: {} } }, /claimLeaf|refundLeaf/],
    ];
    for (const [value, message] of cases) {
      assert.throws(() => parseRefundFile(value), (error: unknown) => error instanceof RefundFileError && message.test(error.message), String(message));
    }
    writeFileSync(join(dir, 'broken.json'), '{"id": ');
    assert.throws(() => readRefundFile(join(dir, 'broken.json')), /is not JSON/);
    writeFileSync(join(dir, 'blank.png'), Buffer.from('89504e470d0a1a0a', 'hex'));
    assert.throws(() => readRefundFile(join(dir, 'blank.png')), /no readable refund QR code/);
  });

  test("an L-BTC swap's file carries its blindingKey, as Boltz's web app names it; without one it is refused", () => {
    const client = newKeyPair();
    const service = newKeyPair();
    const blinding = newKeyPair();
    const terms = { kind: 'submarine', preimageHash: newPreimage().preimageHash, claimPublicKey: service.publicKey, refundPublicKey: client.publicKey, timeoutBlockHeight: 2000, servicePublicKey: service.publicKey } as const;
    const { tree } = liquidSwapOutput(terms, blinding.publicKey, 'regtest');
    const record: SubmarineRecord = {
      ...taprootRecord(),
      currency: 'L-BTC',
      privateKey: hex.encode(client.privateKey),
      publicKey: hex.encode(client.publicKey),
      servicePublicKey: hex.encode(service.publicKey),
      swapTree: serializeLiquidTree(tree),
      timeoutBlockHeight: 2000,
      blindingKey: hex.encode(blinding.privateKey),
    };
    const file = refundFileOf(record);
    assert.equal(file.blindingKey, record.blindingKey);
    const paths = writeRefundFiles(file, join(dir, 'liquid'));
    assert.deepEqual(readRefundFile(paths.png), file);
    const refundable = refundableFromFile(file);
    assert.equal(refundable.taproot?.chain.currency, 'L-BTC');
    assert.equal(hex.encode(refundable.taproot!.blindingKey!), record.blindingKey);

    // The web app's own shape: the chain as `asset`, the service key as `claimPublicKey`.
    const { currency, serverPublicKey: _, ...rest } = file;
    assert.equal(parseRefundFile({ ...rest, asset: currency }).currency, 'L-BTC');
    const { blindingKey: __, ...unblindable } = file;
    assert.throws(() => parseRefundFile(unblindable), /a refund file of L-BTC needs the blindingKey that unblinds its lockup/);
    assert.throws(() => parseRefundFile({ ...file, blindingKey: 'zz' }), /blindingKey is not 32 bytes of hex/);
    // A Bitcoin tree under L-BTC is not Liquid's (leaf version 0xc4).
    assert.throws(() => refundableFromFile({ ...file, swapTree: taprootRecord().swapTree }), /leaf has version 192, not 196/);
  });

  test("a file whose private key is not the tree's refund key is refused before any transaction is built", () => {
    const file: RefundFile = { ...refundFileOf(taprootRecord()), privateKey: hex.encode(newKeyPair().privateKey) };
    assert.throws(() => refundableFromFile(file), VerificationError);
  });

  test('the client store keeps swaps owner-only and lists them oldest first', () => {
    const store = new FileClientStore(join(dir, 'store'));
    assert.equal(statSync(store.dir).mode & 0o777, 0o700);
    const first = { ...taprootRecord(), id: 'First1234567', createdAt: '2024-01-01T00:00:00.000Z' };
    const second = { ...taprootRecord(), id: 'Second123456', createdAt: '2024-01-02T00:00:00.000Z' };
    store.save(second);
    store.save(first);
    assert.equal(statSync(join(store.swapsDir, 'First1234567.json')).mode & 0o777, 0o600);
    assert.deepEqual(store.list().map((r) => r.id), ['First1234567', 'Second123456']);
    assert.deepEqual(store.load('First1234567'), first);
    assert.throws(() => store.load('../../../etc/passwd'), /not a swap id/);
    assert.throws(() => store.load('Unknown12345'), /no swap Unknown12345/);
  });
});
