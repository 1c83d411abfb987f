// v1 GET /getpairs, /timeouts and POST /createswap against Ferry on its devnet: the pair data agrees with v2,
// bad creation requests are 400s naming the problem, and valid ones create legacy swaps (v1-legacy-flow.test.ts
// runs them to the end).
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { hex } from '@scure/base';
import { newKeyPair } from '../helpers/swap-wallet.ts';
import { BITCOIN_LEGACY_SIZES } from '../../src/chains/bitcoin/backend.ts';
import { LIQUID_LEGACY_SIZES } from '../../src/chains/liquid/backend.ts';
import { minerFee } from '../../src/swaps/amounts.ts';
import { failedRequests, startV1World, type V1World } from './v1-support.ts';

let world: V1World;
before(async () => {
  world = await startV1World();
});
after(() => world.close());

const refundPublicKey = hex.encode(newKeyPair().publicKey);
const claimPublicKey = hex.encode(newKeyPair().publicKey);
const preimageHash = 'ab'.repeat(32);

async function btcPair() {
  const answer = await world.call('GET', '/getpairs');
  assert.equal(answer.status, 200);
  return answer.json.pairs['BTC/BTC'];
}

test('GET /getpairs: the v1 shape, the v2 listings\' rates and percentages, miner fees of legacy spends, and a hash over rate, fees and limits', async () => {
  const answer = await world.call('GET', '/getpairs');
  assert.equal(answer.status, 200);
  assert.deepEqual(Object.keys(answer.json), ['info', 'warnings', 'pairs']);
  assert.deepEqual(answer.json.info, []);
  assert.deepEqual(answer.json.warnings, []);
  assert.deepEqual(Object.keys(answer.json.pairs), ['BTC/BTC', 'L-BTC/BTC', 'RBTC/BTC']);
  const pair = answer.json.pairs['BTC/BTC'];

  const submarine = (await world.call('GET', '/v2/swap/submarine')).json.BTC.BTC;
  const reverse = (await world.call('GET', '/v2/swap/reverse')).json.BTC.BTC;
  const feeRates = (await world.call('GET', '/v2/chain/fees')).json;
  // v1 swaps are legacy swaps: the same fee rate, priced at the sizes of legacy spends.
  const legacyFees = (rate: number, sizes: typeof BITCOIN_LEGACY_SIZES) => ({
    normal: minerFee(rate, sizes.claim),
    reverse: { claim: minerFee(rate, sizes.clientClaim), lockup: minerFee(rate, sizes.serverLockup) },
  });
  const minerFees = legacyFees(feeRates.BTC, BITCOIN_LEGACY_SIZES);
  assert.ok(minerFees.normal > submarine.fees.minerFees && minerFees.reverse.claim > reverse.fees.minerFees.claim);
  assert.equal(minerFees.reverse.lockup, reverse.fees.minerFees.lockup, 'the lockup is the same wallet transaction');
  assert.deepEqual(pair, {
    hash: pair.hash,
    rate: 1,
    limits: { minimal: 10_000, maximal: 10_000_000, maximalZeroConf: { baseAsset: 1_000_000, quoteAsset: 1_000_000 } },
    fees: { percentage: 0.25, percentageSwapIn: 0.1, minerFees: { baseAsset: minerFees, quoteAsset: minerFees } },
  });
  assert.equal(pair.rate, submarine.rate);
  assert.equal(pair.fees.percentageSwapIn, submarine.fees.percentage);
  assert.equal(pair.fees.percentage, reverse.fees.percentage);
  const json = JSON.stringify({ rate: pair.rate, fees: pair.fees, limits: pair.limits });
  assert.equal(pair.hash, createHash('sha256').update(json).digest('hex'));

  // L-BTC/BTC: the base asset's chain fees are Liquid's, the quote's are Bitcoin's (where Lightning settles).
  const liquid = answer.json.pairs['L-BTC/BTC'];
  assert.deepEqual(liquid.fees.minerFees, { baseAsset: legacyFees(feeRates['L-BTC'], LIQUID_LEGACY_SIZES), quoteAsset: minerFees });
  // 0.1 sat/vB × Liquid's legacy sizes 181 / 269 / 233.
  assert.deepEqual(liquid.fees.minerFees.baseAsset, { normal: 19, reverse: { claim: 24, lockup: 27 } });
  assert.equal(liquid.hash, createHash('sha256').update(JSON.stringify({ rate: liquid.rate, fees: liquid.fees, limits: liquid.limits })).digest('hex'));
});

test('GET /timeouts gives the configured blocks per pair', async () => {
  const blocks = { reverse: 144, swapMinimal: 144, swapMaximal: 288 };
  // Liquid's blocks come every minute: its base timeouts are ten times the quote's Bitcoin blocks.
  const liquid = { base: { reverse: 1440, swapMinimal: 1440, swapMaximal: 2880 }, quote: blocks };
  // RSK's every 30 seconds: twenty times.
  const rsk = { base: { reverse: 2880, swapMinimal: 2880, swapMaximal: 5760 }, quote: blocks };
  assert.deepEqual(await world.call('GET', '/timeouts'), {
    status: 200,
    json: { timeouts: { 'BTC/BTC': { base: blocks, quote: blocks }, 'L-BTC/BTC': liquid, 'RBTC/BTC': rsk } },
  });
});

test('POST /createswap: every bad request gets a 400 naming the problem, in the order of the checks', async () => {
  const pair = await btcPair();
  const small = await world.invoice('bob', 5_000);
  const other = await world.invoice('bob', 20_000);
  const submarine = { type: 'submarine', pairId: 'BTC/BTC', orderSide: 'sell', preimageHash, refundPublicKey };
  const reverse = { type: 'reversesubmarine', pairId: 'BTC/BTC', orderSide: 'buy', preimageHash, claimPublicKey, invoiceAmount: 50_000 };
  const cases: [unknown, string][] = [
    [undefined, 'request body is missing'],
    [[], 'request body must be a JSON object'],
    [{}, 'undefined parameter: type'],
    [{ type: 7 }, 'invalid parameter: type'],
    [{ type: 'chain' }, 'could not find swap type: chain'],
    [{ type: 'submarine' }, 'undefined parameter: pairId'],
    [{ type: 'submarine', pairId: 'BTCBTC' }, 'invalid parameter: pairId'],
    [{ type: 'submarine', pairId: 'BTC/BTC' }, 'undefined parameter: orderSide'],
    [{ type: 'submarine', pairId: 'BTC/BTC', orderSide: 'hold' }, 'could not find order side: hold'],
    [{ ...submarine, pairId: 'L-BTC/BTC', orderSide: 'buy' }, 'L-BTC has no lightning support'],
    [{ ...reverse, pairId: 'L-BTC/BTC', orderSide: 'sell' }, 'L-BTC has no lightning support'],
    [{ ...submarine, pairId: 'DOGE/BTC', orderSide: 'sell' }, 'could not find pair with id: DOGE/BTC'],
    [{ ...reverse, pairId: 'DOGE/BTC', orderSide: 'buy' }, 'could not find pair with id: DOGE/BTC'],
    [{ ...submarine, pairHash: 'ff'.repeat(32) }, 'invalid pair hash'],
    [{ ...submarine, referralId: 5 }, 'invalid parameter: referralId'],
    [{ ...submarine, preimageHash: undefined }, 'undefined parameter: invoice'],
    [{ ...submarine, preimageHash: 'xyz' }, 'could not parse hex string: preimageHash'],
    [{ ...submarine, refundPublicKey: undefined }, 'undefined parameter: refundPublicKey'],
    [{ ...submarine, refundPublicKey: '02' + '00'.repeat(32) }, 'invalid parameter: refundPublicKey'],
    [{ ...submarine, preimageHash: undefined, invoice: small.invoice }, '5000 is less than minimal of 10000'],
    [{ ...submarine, invoice: other.invoice }, 'invoice payment hash does not match the preimage hash'],
    [{ ...reverse, preimageHash: 'ab'.repeat(16) }, 'invalid preimage hash length: 16'],
    [{ ...reverse, claimPublicKey: undefined }, 'undefined parameter: claimPublicKey'],
    [{ ...reverse, onchainAmount: 40_000 }, 'invoice and onchain amount were specified'],
    [{ ...reverse, invoiceAmount: undefined }, 'no amount was specified'],
    [{ ...reverse, invoiceAmount: -5 }, 'invalid parameter: invoiceAmount'],
    [{ ...reverse, invoiceAmount: 20_000_000 }, '20000000 is exceeds maximal of 10000000'],
    [{ ...reverse, invoiceAmount: undefined, onchainAmount: 100 }, `${Math.ceil((100 + pair.fees.minerFees.baseAsset.reverse.lockup) / 0.9975)} is less than minimal of 10000`],
  ];
  for (const [body, error] of cases) {
    const answer = await world.call('POST', '/createswap', body);
    assert.deepEqual(answer, { status: 400, json: { error } }, `request ${JSON.stringify(body)}`);
  }
  const garbage = await world.call('POST', '/createswap', { ...submarine, preimageHash: undefined, invoice: 'lnbcrt1garbage' });
  assert.equal(garbage.status, 400);
  assert.match(garbage.json.error, /^invalid invoice: /);
  assert.equal(await world.ferry.storage.swaps.count(), 0);
  assert.deepEqual(failedRequests(world.log), []);
});

test('POST /createswap: valid requests of either type create legacy swaps, on BTC and L-BTC; EVM fields are checked per chain', async () => {
  const pair = await btcPair();
  const first = await world.invoice('bob', 50_000);
  const second = await world.invoice('bob', 50_000);
  const third = await world.invoice('bob', 50_000);
  const submarines = [
    { type: 'submarine', pairId: 'BTC/BTC', orderSide: 'sell', invoice: first.invoice, refundPublicKey, pairHash: pair.hash, referralId: 'partner' },
    { type: 'submarine', pairId: 'BTC/BTC', orderSide: 'buy', preimageHash: second.paymentHash, refundPublicKey },
    { type: 'Submarine', pairId: 'BTC/BTC', orderSide: 'SELL', invoice: third.invoice, preimageHash: third.paymentHash, refundPublicKey },
  ];
  for (const body of submarines) {
    const answer = await world.call('POST', '/createswap', body);
    assert.equal(answer.status, 201, JSON.stringify(answer.json));
    assert.match(answer.json.address, /^2/); // P2SH on regtest
    assert.match(answer.json.redeemScript, /^a914/); // OP_HASH160 <20 bytes>
  }
  // The same invoice again is a conflict, which v1 answers with 400.
  const again = await world.call('POST', '/createswap', submarines[0]);
  assert.deepEqual(again, { status: 400, json: { error: 'a swap with this invoice exists already' } });
  const reverses = [
    { type: 'reversesubmarine', pairId: 'BTC/BTC', orderSide: 'buy', preimageHash, claimPublicKey, invoiceAmount: 50_000, pairHash: pair.hash },
    { type: 'reversesubmarine', pairId: 'BTC/BTC', orderSide: 'sell', preimageHash: 'cd'.repeat(32), claimPublicKey, onchainAmount: 50_000, referralId: 'partner' },
  ];
  for (const body of reverses) {
    const answer = await world.call('POST', '/createswap', body);
    assert.equal(answer.status, 201, JSON.stringify(answer.json));
    assert.match(answer.json.lockupAddress, /^bcrt1q/); // P2WSH
    assert.equal('onchainAmount' in answer.json, body.invoiceAmount !== undefined);
  }
  assert.equal(await world.ferry.storage.swaps.count(), 5);
  // Liquid's legacy lockups are blinded P2WSH, with the key that blinded them.
  const liquid = await world.call('POST', '/createswap', { type: 'submarine', pairId: 'L-BTC/BTC', orderSide: 'sell', preimageHash: 'ef'.repeat(32), refundPublicKey });
  assert.equal(liquid.status, 201, JSON.stringify(liquid.json));
  assert.match(liquid.json.address, /^el1qq/); // confidential P2WSH on elementsregtest
  assert.match(liquid.json.blindingKey, /^[0-9a-f]{64}$/);
  assert.equal(await world.ferry.storage.swaps.count(), 6);
  // A chain's fields, never another's: keys are for UTXO chains, addresses and gas for the contract chain.
  const wrongChain = [
    [{ type: 'submarine', pairId: 'RBTC/BTC', orderSide: 'sell', preimageHash: '01'.repeat(32), refundPublicKey }, /refundPublicKey/],
    [{ type: 'reversesubmarine', pairId: 'RBTC/BTC', orderSide: 'buy', preimageHash: '02'.repeat(32), claimPublicKey, invoiceAmount: 50_000 }, /claimPublicKey/],
    [{ type: 'reversesubmarine', pairId: 'RBTC/BTC', orderSide: 'buy', preimageHash: '03'.repeat(32), claimAddress: 'not an address', invoiceAmount: 50_000 }, /claimAddress/],
    [{ type: 'reversesubmarine', pairId: 'BTC/BTC', orderSide: 'buy', preimageHash: '04'.repeat(32), claimPublicKey, invoiceAmount: 50_000, prepayMinerFee: true }, /prepayMinerFee/],
    [{ type: 'reversesubmarine', pairId: 'BTC/BTC', orderSide: 'buy', preimageHash: '05'.repeat(32), claimPublicKey, invoiceAmount: 50_000, gasless: 'yes' }, /gasless/],
  ] as const;
  for (const [body, error] of wrongChain) {
    const answer = await world.call('POST', '/createswap', body);
    assert.equal(answer.status, 400, JSON.stringify(answer.json));
    assert.match(answer.json.error, error);
  }
  assert.equal(await world.ferry.storage.swaps.count(), 6);
  assert.deepEqual(failedRequests(world.log), []);
});
