// The client's check of a claim covenant it asked for: the answer's covenant leaf must commit to our address and to
// all the lockup holds but a covenant claim's fee and the blinded satoshi; the rebuilt tree must be the service's.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { address as laddress, networks } from 'liquidjs-lib';
import { committedAmount, covenantClaimFee, covenantExpectedAmount, claimCovenantTerms } from '../../src/chains/liquid/covenant.ts';
import { LIQUID_LEAF_VERSION, liquidSwapOutput, serializeLiquidTree } from '../../src/chains/liquid/htlc.ts';
import { checkClaimCovenant } from '../../src/client/covenant.ts';
import { deserializeTree, sameTree } from '../../src/client/taproot.ts';
import type { ReversePair } from '../../src/client/types.ts';

const key = () => secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true);
const address = (program: Uint8Array) => laddress.fromOutputScript(Buffer.concat([Buffer.of(0x00, 0x14), program]), networks.regtest);
const ours = address(new Uint8Array(20).fill(7));
const theirs = address(new Uint8Array(20).fill(9));
const ONCHAIN = 100_000;
const CLAIM_FEE = 20;
const pair = { fees: { percentage: 0.25, minerFees: { lockup: 30, claim: CLAIM_FEE } } } as unknown as ReversePair;

/** A reverse swap answer whose covenant pays `to` the amount given. */
function answer(to: string, amount: number) {
  const terms = {
    kind: 'reverse',
    preimageHash: sha256(new Uint8Array(32)),
    claimPublicKey: key(),
    refundPublicKey: key(),
    servicePublicKey: key(),
    timeoutBlockHeight: 1_000,
  } as const;
  const claimCovenant = claimCovenantTerms(to, amount, 'regtest');
  const { tree } = liquidSwapOutput({ ...terms, claimCovenant }, key(), 'regtest');
  return { terms, tree, swapTree: serializeLiquidTree(tree) };
}

describe('claim covenant answers', () => {
  const honestAmount = covenantExpectedAmount(ONCHAIN, covenantClaimFee(0.1, CLAIM_FEE));

  test("an honest leaf gives the terms to rebuild it, and the rebuilt tree is the service's", () => {
    const built = answer(ours, honestAmount);
    assert.equal(built.swapTree.covenantClaimLeaf?.version, LIQUID_LEAF_VERSION);
    assert.equal(committedAmount(built.swapTree.covenantClaimLeaf!.output), honestAmount);
    const checked = checkClaimCovenant({ swapTree: built.swapTree }, ours, 'L-BTC', ONCHAIN, 'regtest', pair);
    assert.ok('terms' in checked, JSON.stringify(checked));
    const rebuilt = liquidSwapOutput({ ...built.terms, claimCovenant: checked.terms }, key(), 'regtest').tree;
    assert.ok(sameTree(built.swapTree, rebuilt, (json) => deserializeTree(json, LIQUID_LEAF_VERSION)));
  });

  test('a leaf paying another address is not the tree we rebuild for ours', () => {
    const built = answer(theirs, honestAmount);
    const checked = checkClaimCovenant({ swapTree: built.swapTree }, ours, 'L-BTC', ONCHAIN, 'regtest', pair);
    assert.ok('terms' in checked);
    const rebuilt = liquidSwapOutput({ ...built.terms, claimCovenant: checked.terms }, key(), 'regtest').tree;
    assert.equal(sameTree(built.swapTree, rebuilt, (json) => deserializeTree(json, LIQUID_LEAF_VERSION)), false);
    // Nor is a tree without the covenant leaf.
    const plain = liquidSwapOutput(built.terms, key(), 'regtest').tree;
    assert.equal(sameTree(built.swapTree, plain, (json) => deserializeTree(json, LIQUID_LEAF_VERSION)), false);
  });

  test('a leaf keeping more than a covenant claim fee of 1 sat/vbyte, or committing more than is locked, is refused', () => {
    const least = covenantExpectedAmount(ONCHAIN, covenantClaimFee(1, CLAIM_FEE));
    const ok = checkClaimCovenant({ swapTree: answer(ours, least).swapTree }, ours, 'L-BTC', ONCHAIN, 'regtest', pair);
    assert.ok('terms' in ok);
    const low = checkClaimCovenant({ swapTree: answer(ours, least - 1).swapTree }, ours, 'L-BTC', ONCHAIN, 'regtest', pair);
    assert.match('error' in low ? low.error : '', /less than the \d+ sat a covenant claim's fee leaves/);
    const high = checkClaimCovenant({ swapTree: answer(ours, ONCHAIN + 1).swapTree }, ours, 'L-BTC', ONCHAIN, 'regtest', pair);
    assert.match('error' in high ? high.error : '', /not a part of the 100000 sat locked/);
  });

  test('no covenant leaf, another chain or a bad address is refused', () => {
    const { swapTree } = answer(ours, honestAmount);
    const { covenantClaimLeaf: _dropped, ...plain } = swapTree;
    assert.ok(_dropped !== undefined);
    const refusal = (result: ReturnType<typeof checkClaimCovenant>) => ('error' in result ? result.error : '');
    assert.match(refusal(checkClaimCovenant({ swapTree: plain }, ours, 'L-BTC', ONCHAIN, 'regtest')), /no covenant claim leaf/);
    assert.match(refusal(checkClaimCovenant({ swapTree }, ours, 'BTC', ONCHAIN, 'regtest')), /only on L-BTC/);
    assert.match(refusal(checkClaimCovenant({ swapTree }, 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', 'L-BTC', ONCHAIN, 'regtest')), /not a Liquid regtest address/);
  });
});
