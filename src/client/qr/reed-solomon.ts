// Reed–Solomon over GF(256) as QR codes use it: the generator's roots are α^0 … α^(n−1), codewords are
// written highest degree first. Encoding gives the error-correction codewords of a block; decoding
// corrects up to n/2 wrong codewords (Berlekamp–Massey, Chien search, Forney).
import { alphaPower, divide, inverse, multiply } from './gf256.ts';

const generators = new Map<number, Uint8Array>();

/** Coefficients of ∏ (x − α^i), i < degree, highest degree first without the leading 1. */
function generator(degree: number): Uint8Array {
  let cached = generators.get(degree);
  if (cached) return cached;
  let poly = [1];
  for (let i = 0; i < degree; i++) {
    const root = alphaPower(i);
    const next = new Array<number>(poly.length + 1).fill(0);
    for (let j = 0; j < poly.length; j++) {
      next[j] ^= poly[j];
      next[j + 1] ^= multiply(poly[j], root);
    }
    poly = next;
  }
  cached = Uint8Array.from(poly.slice(1));
  generators.set(degree, cached);
  return cached;
}

/** The `degree` error-correction codewords of `data`: the remainder of data·x^degree by the generator. */
export function rsEncode(data: Uint8Array, degree: number): Uint8Array {
  const gen = generator(degree);
  const remainder = new Uint8Array(degree);
  for (const byte of data) {
    const factor = byte ^ remainder[0];
    remainder.copyWithin(0, 1);
    remainder[degree - 1] = 0;
    for (let i = 0; i < degree; i++) remainder[i] ^= multiply(gen[i], factor);
  }
  return remainder;
}

export class ReedSolomonError extends Error {}

/** Value of the polynomial (highest degree first) at x. */
function evaluate(codeword: Uint8Array, x: number): number {
  let result = 0;
  for (const coefficient of codeword) result = multiply(result, x) ^ coefficient;
  return result;
}

/**
 * Corrects `codeword` (data followed by `degree` check codewords) in place; returns how many codewords were
 * wrong. Throws when there are more errors than the code can fix.
 */
export function rsDecode(codeword: Uint8Array, degree: number): number {
  const n = codeword.length;
  const syndromes = Array.from({ length: degree }, (_, j) => evaluate(codeword, alphaPower(j)));
  if (syndromes.every((s) => s === 0)) return 0;

  // Berlekamp–Massey: the shortest error locator Λ(x) = 1 + Λ1 x + …, lowest degree first.
  let locator = [1];
  let previous = [1];
  let length = 0;
  let shift = 1;
  let lastDiscrepancy = 1;
  for (let step = 0; step < degree; step++) {
    let discrepancy = syndromes[step];
    for (let i = 1; i <= length; i++) discrepancy ^= multiply(locator[i] ?? 0, syndromes[step - i]);
    if (discrepancy === 0) {
      shift++;
      continue;
    }
    const scale = divide(discrepancy, lastDiscrepancy);
    const updated = locator.slice();
    for (let i = 0; i < previous.length; i++) {
      while (updated.length <= i + shift) updated.push(0);
      updated[i + shift] ^= multiply(scale, previous[i]);
    }
    if (2 * length <= step) {
      previous = locator;
      length = step + 1 - length;
      lastDiscrepancy = discrepancy;
      shift = 1;
    } else {
      shift++;
    }
    locator = updated;
  }
  while (locator.length > 1 && locator[locator.length - 1] === 0) locator.pop();
  const errors = locator.length - 1;
  if (errors * 2 > degree) throw new ReedSolomonError('too many errors to correct');

  // Chien search: an error at power p (index n−1−p) makes Λ(α^−p) vanish.
  const evaluateAscending = (poly: number[], x: number) => poly.reduceRight((acc, c) => multiply(acc, x) ^ c, 0);
  const powers: number[] = [];
  for (let p = 0; p < n; p++) {
    if (evaluateAscending(locator, inverse(alphaPower(p))) === 0) powers.push(p);
  }
  if (powers.length !== errors) throw new ReedSolomonError('error locator has roots outside the codeword');

  // Forney, with the generator's first root α^0: e = X·Ω(X⁻¹) / Λ'(X⁻¹), Ω = S·Λ mod x^degree.
  const omega = new Array<number>(degree).fill(0);
  for (let i = 0; i < degree; i++) {
    for (let j = 0; j <= i && j < locator.length; j++) omega[i] ^= multiply(locator[j], syndromes[i - j]);
  }
  const derivative = locator.map((c, i) => (i % 2 === 1 ? c : 0)).slice(1);
  for (const p of powers) {
    const x = alphaPower(p);
    const xInverse = inverse(x);
    const denominator = evaluateAscending(derivative, xInverse);
    if (denominator === 0) throw new ReedSolomonError('cannot compute an error value');
    codeword[n - 1 - p] ^= multiply(x, divide(evaluateAscending(omega, xInverse), denominator));
  }
  if (!Array.from({ length: degree }, (_, j) => evaluate(codeword, alphaPower(j))).every((s) => s === 0)) {
    throw new ReedSolomonError('correction failed');
  }
  return errors;
}
