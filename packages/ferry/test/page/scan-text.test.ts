// What the camera scan (src/page/scan.ts) puts into the invoice and address fields from the text of a QR code: QR
// codes carry payment URIs and upper-case bech32 as often as the bare invoice or address. The scan itself, with
// Chromium's camera, is in swap-page.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scannedValue } from '../../src/page/scan.ts';

const INVOICE = 'lnbcrt250u1pnxyzpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypq';
const BECH32 = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
const BASE58 = '2N1LGaGg836mqSQqiuUBLfcyGBhyZbremDX';

test('an invoice: bare, upper case, behind lightning:, or in a unified payment URI', () => {
  assert.equal(scannedValue(INVOICE, 'invoice'), INVOICE);
  assert.equal(scannedValue(` ${INVOICE.toUpperCase()}\n`, 'invoice'), INVOICE);
  assert.equal(scannedValue(`lightning:${INVOICE}`, 'invoice'), INVOICE);
  assert.equal(scannedValue(`LIGHTNING:${INVOICE.toUpperCase()}`, 'invoice'), INVOICE);
  assert.equal(scannedValue(`bitcoin:${BECH32}?amount=0.00025&lightning=${INVOICE}`, 'invoice'), INVOICE);
});

test('an address: bare, upper-case bech32 lowered, base58 kept as it is, the URI cut to the address', () => {
  assert.equal(scannedValue(BECH32.toUpperCase(), 'address'), BECH32);
  assert.equal(scannedValue(BASE58, 'address'), BASE58);
  assert.equal(scannedValue(`bitcoin:${BASE58}?amount=0.001`, 'address'), BASE58);
  assert.equal(scannedValue(`BITCOIN:${BECH32.toUpperCase()}?AMOUNT=0.001`, 'address'), BECH32);
  assert.equal(scannedValue(`bitcoin:${BECH32}?amount=0.00025&lightning=${INVOICE}`, 'address'), BECH32, 'the address of a unified URI');
  assert.equal(scannedValue(`liquidnetwork:${BECH32}?amount=0.001`, 'address'), BECH32);
});

test('any other text goes into the field as read, for the field to refuse with its reason', () => {
  assert.equal(scannedValue('https://example.com/pay', 'invoice'), 'https://example.com/pay');
  assert.equal(scannedValue('Hello', 'address'), 'Hello');
});
