// Feature bits as a list of bit numbers (how Ferry and LND's REST answers speak of them) and the `9` field's words:
// big-endian, bit 0 the lowest bit of the last word, as few words as hold the highest bit.

export function featureBitsOfWords(words: readonly number[]): number[] {
  const bits: number[] = [];
  for (let k = 0; k < words.length; k++) {
    const word = words[words.length - 1 - k];
    for (let j = 0; j < 5; j++) if ((word >> j) & 1) bits.push(5 * k + j);
  }
  return bits;
}

export function wordsOfFeatureBits(bits: readonly number[]): number[] {
  if (bits.some((bit) => !Number.isSafeInteger(bit) || bit < 0)) throw new Error('feature bits must be non-negative integers');
  if (bits.length === 0) return [];
  const words = new Array<number>(Math.floor(Math.max(...bits) / 5) + 1).fill(0);
  for (const bit of bits) words[words.length - 1 - Math.floor(bit / 5)] |= 1 << bit % 5;
  return words;
}
