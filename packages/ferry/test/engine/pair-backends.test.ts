// The engine serves only pairs it has backends for: a configured pair whose chain or Lightning node is missing
// stops start-up with a message naming it, instead of failing the first swap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import type { ChainBackend } from '@ferry/sdk/chains/backend.js';
import type { Storage } from '../../src/db/index.ts';
import { SwapEngine } from '../../src/engine/index.ts';
import { SwapKeys } from '@ferry/sdk/keys/index.js';
import type { LightningBackend } from '../../src/lightning/backend.ts';
import { DEFAULT_BTC_PAIR } from '../../src/swaps/pairs.ts';

const keys = SwapKeys.fromMnemonic(generateMnemonic(wordlist, 256), 'regtest');
const storage = {} as Storage;
const chain = { symbol: 'BTC' } as ChainBackend;
const lightning = {} as LightningBackend;
const liquidPair = { ...DEFAULT_BTC_PAIR, id: 'L-BTC/BTC', base: 'L-BTC' };

test('a pair without its chain backend is refused at construction', () => {
  assert.throws(
    () => new SwapEngine({ storage, keys, chains: new Map([['BTC', chain]]), lightning: new Map([['BTC', lightning]]), pairs: [DEFAULT_BTC_PAIR, liquidPair] }),
    /pair L-BTC\/BTC: no chain backend for L-BTC/,
  );
});

test('a pair without its Lightning backend is refused at construction', () => {
  assert.throws(
    () => new SwapEngine({ storage, keys, chains: new Map([['BTC', chain]]), lightning: new Map(), pairs: [DEFAULT_BTC_PAIR] }),
    /pair BTC\/BTC: no Lightning backend for BTC/,
  );
});
