// BOLT #11's own examples (decoding and signature checks), round trips of the invoices the devnet writes, the writer's
// output against what the bolt11 package wrote before the SDK had its own, and the BOLT #11 reader rules.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { bech32 } from '@scure/base';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { decodeBolt11, decodeOwnBolt11, encodeBolt11 } from '../../src/lightning/bolt11/index.ts';

const SPEC_KEY = '03e7156ae33b0a208d0744199163177e909e80176e55d97a2f221ede0f934dd9ad';
const SPEC_SECRET = Buffer.from('e126f68f7eafcc8b74f54d269fe206be715000f94dac067d1c04a8ca3b2db734', 'hex');
const SPEC_HASH = '0001020304050607080900010203040506070809000102030405060708090102';
const CAKE_HASH = createHash('sha256')
  .update(
    'One piece of chocolate cake, one icecream cone, one pickle, one slice of swiss cheese, one slice of salami, ' +
      'one lollypop, one piece of cherry pie, one sausage, one cupcake, and one slice of watermelon',
  )
  .digest('hex');

describe('BOLT11 spec examples', () => {
  test('donation of any amount', () => {
    const inv = decodeBolt11(
      'lnbc1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpl2pkx2ctnv5sxxmmwwd5kgetjypeh2ursdae8g6twvus8g6rfwvs8qun0dfjkxaq8rkx3yf5tcsyz3d73gafnh3cax9rn449d9p5uxz9ezhhypd0elx87sjle52x86fux2ypatgddc6k63n7erqz25le42c4u4ecky03ylcqca784w',
    );
    assert.equal(inv.network, 'bc');
    assert.equal(inv.amountMsat, undefined);
    assert.equal(inv.timestamp, 1496314658);
    assert.equal(inv.paymentHash, SPEC_HASH);
    assert.equal(inv.description, 'Please consider supporting this project');
    assert.equal(inv.payeeNodeKey, SPEC_KEY);
    assert.equal(inv.expiry, 3600);
    assert.equal(inv.minFinalCltvExpiry, 18);
    assert.equal(
      inv.signature,
      '38ec6891345e204145be8a3a99de38e98a39d6a569434e1845c8af7205afcfcc7f425fcd1463e93c32881ead0d6e356d467ec8c02553f9aab15e5738b11f127f',
    );
    assert.equal(inv.recoveryId, 0);
  });

  test('coffee within one minute, and its utf-8 variant', () => {
    const a = decodeBolt11(
      'lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpuaztrnwngzn3kdzw5hydlzf03qdgm2hdq27cqv3agm2awhz5se903vruatfhq77w3ls4evs3ch9zw97j25emudupq63nyw24cg27h2rspfj9srp',
    );
    assert.equal(a.amountMsat, 250_000_000n);
    assert.equal(a.description, '1 cup coffee');
    assert.equal(a.expiry, 60);
    assert.equal(a.recoveryId, 1);
    assert.equal(a.payeeNodeKey, SPEC_KEY);
    const b = decodeBolt11(
      'lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpquwpc4curk03c9wlrswe78q4eyqc7d8d0xqzpuyk0sg5g70me25alkluzd2x62aysf2pyy8edtjeevuv4p2d5p76r4zkmneet7uvyakky2zr4cusd45tftc9c5fh0nnqpnl2jfll544esqchsrny',
    );
    assert.equal(b.description, 'ナンセンス 1杯');
    assert.equal(b.payeeNodeKey, SPEC_KEY);
  });

  test('hashed description with fallback addresses and route hints', () => {
    const hashed = decodeBolt11(
      'lnbc20m1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqhp58yjmdan79s6qqdhdzgynm4zwqd5d7xmw5fk98klysy043l2ahrqscc6gd6ql3jrc5yzme8v4ntcewwz5cnw92tz0pc8qcuufvq7khhr8wpald05e92xw006sq94mg8v2ndf4sefvf9sygkshp5zfem29trqq2yxxz7',
    );
    assert.equal(hashed.amountMsat, 2_000_000_000n);
    assert.equal(hashed.descriptionHash, CAKE_HASH);
    assert.equal(hashed.payeeNodeKey, SPEC_KEY);

    const testnet = decodeBolt11(
      'lntb20m1pvjluezhp58yjmdan79s6qqdhdzgynm4zwqd5d7xmw5fk98klysy043l2ahrqspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqfpp3x9et2e20v6pu37c5d9vax37wxq72un98kmzzhznpurw9sgl2v0nklu2g4d0keph5t7tj9tcqd8rexnd07ux4uv2cjvcqwaxgj7v4uwn5wmypjd5n69z2xm3xgksg28nwht7f6zspwp3f9t',
    );
    assert.equal(testnet.network, 'tb');
    assert.deepEqual(testnet.fallbackAddresses, [{ version: 17, program: '3172b5654f6683c8fb146959d347ce303cae4ca7' }]);
    assert.equal(testnet.payeeNodeKey, SPEC_KEY);

    const routed = decodeBolt11(
      'lnbc20m1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqhp58yjmdan79s6qqdhdzgynm4zwqd5d7xmw5fk98klysy043l2ahrqsfpp3qjmp7lwpagxun9pygexvgpjdc4jdj85fr9yq20q82gphp2nflc7jtzrcazrra7wwgzxqc8u7754cdlpfrmccae92qgzqvzq2ps8pqqqqqqpqqqqq9qqqvpeuqafqxu92d8lr6fvg0r5gv0heeeqgcrqlnm6jhphu9y00rrhy4grqszsvpcgpy9qqqqqqgqqqqq7qqzqj9n4evl6mr5aj9f58zp6fyjzup6ywn3x6sk8akg5v4tgn2q8g4fhx05wf6juaxu9760yp46454gpg5mtzgerlzezqcqvjnhjh8z3g2qqdhhwkj',
    );
    assert.deepEqual(routed.routeHints, [
      [
        {
          pubkey: '029e03a901b85534ff1e92c43c74431f7ce72046060fcf7a95c37e148f78c77255',
          shortChannelId: '0102030405060708',
          feeBaseMsat: 1,
          feeProportionalMillionths: 20,
          cltvExpiryDelta: 3,
        },
        {
          pubkey: '039e03a901b85534ff1e92c43c74431f7ce72046060fcf7a95c37e148f78c77255',
          shortChannelId: '030405060708090a',
          feeBaseMsat: 2,
          feeProportionalMillionths: 30,
          cltvExpiryDelta: 4,
        },
      ],
    ]);
    assert.equal(routed.payeeNodeKey, SPEC_KEY);

    const p2wsh = decodeBolt11(
      'lnbc20m1pvjluezhp58yjmdan79s6qqdhdzgynm4zwqd5d7xmw5fk98klysy043l2ahrqspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqfp4qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q28j0v3rwgy9pvjnd48ee2pl8xrpxysd5g44td63g6xcjcu003j3qe8878hluqlvl3km8rm92f5stamd3jw763n3hck0ct7p8wwj463cql26ava',
    );
    assert.deepEqual(p2wsh.fallbackAddresses, [
      { version: 0, program: '1863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262' },
    ]);
  });

  test('pico-bitcoin amount, expiry, min_final_cltv_expiry', () => {
    const inv = decodeBolt11(
      'lnbc9678785340p1pwmna7lpp5gc3xfm08u9qy06djf8dfflhugl6p7lgza6dsjxq454gxhj9t7a0sd8dgfkx7cmtwd68yetpd5s9xar0wfjn5gpc8qhrsdfq24f5ggrxdaezqsnvda3kkum5wfjkzmfqf3jkgem9wgsyuctwdus9xgrcyqcjcgpzgfskx6eqf9hzqnteypzxz7fzypfhg6trddjhygrcyqezcgpzfysywmm5ypxxjemgw3hxjmn8yptk7untd9hxwg3q2d6xjcmtv4ezq7pqxgsxzmnyyqcjqmt0wfjjq6t5v4khxxqyjw5qcqp2rzjq0gxwkzc8w6323m55m4jyxcjwmy7stt9hwkwe2qxmy8zpsgg7jcuwz87fcqqeuqqqyqqqqlgqqqqn3qq9qn07ytgrxxzad9hc4xt3mawjjt8znfv8xzscs7007v9gh9j569lencxa8xeujzkxs0uamak9aln6ez02uunw6rd2ht2sqe4hz8thcdagpleym0j',
    );
    assert.equal(inv.amountMsat, 967878534n);
    assert.equal(inv.timestamp, 1572468703);
    assert.equal(inv.paymentHash, '462264ede7e14047e9b249da94fefc47f41f7d02ee9b091815a5506bc8abf75f');
    assert.equal(inv.expiry, 604800);
    assert.equal(inv.minFinalCltvExpiry, 10);
    assert.equal(inv.routeHints[0][0].feeBaseMsat, 1000);
    assert.equal(inv.routeHints[0][0].feeProportionalMillionths, 2500);
    assert.equal(inv.routeHints[0][0].cltvExpiryDelta, 40);
    assert.equal(inv.payeeNodeKey, SPEC_KEY);
  });

  const COFFEE_BEANS =
    'lnbc25m1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5vdhkven9v5sxyetpdeessp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygs9q5sqqqqqqqqqqqqqqqpqsq67gye39hfg3zd8rgc80k32tvy9xk2xunwm5lzexnvpx6fd77en8qaq424dxgt56cag2dpt359k3ssyhetktkpqh24jqnjyw6uqd08sgptq44qu';

  test('payment secret and features 9, 15 and 99; upper case too', () => {
    for (const text of [COFFEE_BEANS, COFFEE_BEANS.toUpperCase()]) {
      const inv = decodeBolt11(text);
      assert.equal(inv.amountMsat, 2_500_000_000n);
      assert.equal(inv.description, 'coffee beans');
      assert.equal(inv.paymentSecret, '11'.repeat(32));
      assert.deepEqual(inv.featureBits, [9, 15, 99]);
      assert.equal(inv.payeeNodeKey, SPEC_KEY);
    }
  });

  const INVALID: [string, string][] = [
    [
      'unknown required feature 100',
      'lnbc25m1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5vdhkven9v5sxyetpdeessp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygs9q4psqqqqqqqqqqqqqqqpqsqq40wa3khl49yue3zsgm26jrepqr2eghqlx86rttutve3ugd05em86nsefzh4pfurpd9ek9w2vp95zxqnfe2u7ckudyahsa52q66tgzcp6t2dyk',
    ],
    [
      'bad checksum',
      'lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpquwpc4curk03c9wlrswe78q4eyqc7d8d0xqzpuyk0sg5g70me25alkluzd2x62aysf2pyy8edtjeevuv4p2d5p76r4zkmneet7uvyakky2zr4cusd45tftc9c5fh0nnqpnl2jfll544esqchsrnt',
    ],
    [
      'no separator',
      'pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpquwpc4curk03c9wlrswe78q4eyqc7d8d0xqzpuyk0sg5g70me25alkluzd2x62aysf2pyy8edtjeevuv4p2d5p76r4zkmneet7uvyakky2zr4cusd45tftc9c5fh0nnqpnl2jfll544esqchsrny',
    ],
    [
      'mixed case',
      'LNBC2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpquwpc4curk03c9wlrswe78q4eyqc7d8d0xqzpuyk0sg5g70me25alkluzd2x62aysf2pyy8edtjeevuv4p2d5p76r4zkmneet7uvyakky2zr4cusd45tftc9c5fh0nnqpnl2jfll544esqchsrny',
    ],
    [
      'signature not recoverable',
      'lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpuaxtrnwngzn3kdzw5hydlzf03qdgm2hdq27cqv3agm2awhz5se903vruatfhq77w3ls4evs3ch9zw97j25emudupq63nyw24cg27h2rspk28uwq',
    ],
    [
      'too short',
      'lnbc1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpl2pkx2ctnv5sxxmmwwd5kgetjypeh2ursdae8g6na6hlh',
    ],
    [
      'invalid multiplier',
      'lnbc2500x1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpujr6jxr9gq9pv6g46y7d20jfkegkg4gljz2ea2a3m9lmvvr95tq2s0kvu70u3axgelz3kyvtp2ywwt0y8hkx2869zq5dll9nelr83zzqqpgl2zg',
    ],
    [
      'sub-millisatoshi precision',
      'lnbc2500000001p1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpu7hqtk93pkf7sw55rdv4k9z2vj050rxdr6za9ekfs3nlt5lr89jqpdmxsmlj9urqumg0h9wzpqecw7th56tdms40p2ny9q4ddvjsedzcplva53s',
    ],
  ];
  for (const [name, text] of INVALID) {
    test(`rejects: ${name}`, () => {
      assert.throws(() => decodeBolt11(text));
    });
  }

});

describe('BOLT11 regtest round trips', () => {
  test('lnbcrt invoice with payment secret, expiry and cltv decodes to what was written', () => {
    const secret = secp256k1.utils.randomSecretKey();
    const paymentHash = randomBytes(32).toString('hex');
    const paymentSecret = randomBytes(32).toString('hex');
    for (const amountMsat of [1n, 10n, 1000n, 123_456_000n, 100_000_000_000n, 2_500_000_000n]) {
      const text = encodeBolt11(
        {
          network: 'bcrt',
          amountMsat,
          timestamp: 1_700_000_000,
          paymentHash,
          paymentSecret,
          description: 'ferry swap',
          expiry: 86_400,
          minFinalCltvExpiry: 80,
        },
        secret,
      );
      assert.ok(text.startsWith('lnbcrt'));
      const inv = decodeBolt11(text);
      assert.equal(inv.network, 'bcrt');
      assert.equal(inv.amountMsat, amountMsat);
      assert.equal(inv.paymentHash, paymentHash);
      assert.equal(inv.paymentSecret, paymentSecret);
      assert.equal(inv.description, 'ferry swap');
      assert.equal(inv.expiry, 86_400);
      assert.equal(inv.minFinalCltvExpiry, 80);
      assert.deepEqual(inv.featureBits, [8, 14, 17]);
      assert.equal(inv.payeeNodeKey, Buffer.from(secp256k1.getPublicKey(secret, true)).toString('hex'));
    }
  });

  test('an invoice written with the spec key is read back as signed by the spec node', () => {
    const text = encodeBolt11(
      { network: 'bcrt', amountMsat: 10n, timestamp: 1496314658, paymentHash: SPEC_HASH, description: 'x' },
      SPEC_SECRET,
    );
    assert.equal(decodeBolt11(text).payeeNodeKey, SPEC_KEY);
  });

  test('amountless invoice with description hash and explicit node key', () => {
    const secret = secp256k1.utils.randomSecretKey();
    const text = encodeBolt11(
      {
        network: 'bcrt',
        timestamp: 1_700_000_000,
        paymentHash: '22'.repeat(32),
        paymentSecret: '33'.repeat(32),
        descriptionHash: CAKE_HASH,
        includeNodeKey: true,
      },
      secret,
    );
    const inv = decodeBolt11(text);
    assert.equal(inv.amountMsat, undefined);
    assert.equal(inv.descriptionHash, CAKE_HASH);
    assert.equal(inv.payeeNodeKey, Buffer.from(secp256k1.getPublicKey(secret, true)).toString('hex'));
  });

  test('writes, character for character, what the bolt11 package (1.4.1) wrote for the same fields and key', () => {
    const text = encodeBolt11(
      {
        network: 'bc',
        amountMsat: 2_500_000_000n,
        timestamp: 1496314658,
        paymentHash: SPEC_HASH,
        paymentSecret: '11'.repeat(32),
        description: 'coffee beans',
        expiry: 60,
        minFinalCltvExpiry: 40,
        featureBits: [8, 14, 17, 99],
        includeNodeKey: true,
        routeHints: [
          [{ pubkey: '029e03a901b85534ff1e92c43c74431f7ce72046060fcf7a95c37e148f78c77255', shortChannelId: '0102030405060708', feeBaseMsat: 1, feeProportionalMillionths: 20, cltvExpiryDelta: 3 }],
        ],
      },
      SPEC_SECRET,
    );
    assert.equal(
      text,
      'lnbc25m1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygsdq5vdhkven9v5sxyetpdeesxqzpucqzpgrzjq20q82gphp2nflc7jtzrcazrra7wwgzxqc8u7754cdlpfrmccae92qgzqvzq2ps8pqqqqqqpqqqqq9qqqv9q5sqqqqqqqqqqqqqqqysgqnp4q0n326hr8v9zprg8gsvezcch06gfaqqhde2aj730yg0durunfhv66g3mhp7jpul3fl4f5yhmtfkw5mc6jzvhkdh8rpc9nr28frgjqwpgh8rtj9y5hue52xrvcwmsm9aaffpnwv9undw3tw3whfrkrs0t9npsqlk9zpl',
    );
    const inv = decodeBolt11(text);
    assert.deepEqual(inv.featureBits, [8, 14, 17, 99]);
    assert.equal(inv.routeHints[0][0].cltvExpiryDelta, 3);
    assert.equal(inv.payeeNodeKey, SPEC_KEY);
  });

  test('a changed character breaks the checksum', () => {
    const secret = secp256k1.utils.randomSecretKey();
    const text = encodeBolt11(
      { network: 'bcrt', amountMsat: 5000n, timestamp: 1_700_000_000, paymentHash: '44'.repeat(32), description: '' },
      secret,
    );
    const flipped = text.slice(0, 20) + (text[20] === 'q' ? 'p' : 'q') + text.slice(21);
    assert.throws(() => decodeBolt11(flipped));
  });
});

// Invoices no honest writer makes, signed field by field, for the reader rules.
describe('BOLT11 reader rules', () => {
  const key = secp256k1.utils.randomSecretKey();
  const nodeKey = Buffer.from(secp256k1.getPublicKey(key, true)).toString('hex');
  const TIMESTAMP = [0, 0, 0, 0, 0, 0, 1];

  // Bytes from words, the last byte padded with zero bits: what the signature covers.
  function paddedBytes(words: number[]): Uint8Array {
    const bits = words.map((w) => w.toString(2).padStart(5, '0')).join('');
    const padded = bits.padEnd(Math.ceil(bits.length / 8) * 8, '0');
    return Uint8Array.from(padded.match(/.{8}/g) ?? [], (byte) => parseInt(byte, 2));
  }
  const field = (tag: number, data: number[]) => [tag, data.length >> 5, data.length & 31, ...data];
  const bytesField = (tag: number, bytes: Uint8Array | Buffer) => field(tag, bech32.toWords(bytes));
  const hash = (byte: string) => Buffer.from(byte.repeat(32), 'hex');

  function signed(prefix: string, fields: number[][]): string {
    const words = [...TIMESTAMP, ...fields.flat()];
    const message = Buffer.concat([Buffer.from(prefix), paddedBytes(words)]);
    const recovered = secp256k1.sign(createHash('sha256').update(message).digest(), key, { prehash: false, format: 'recovered' });
    const signature = Buffer.concat([recovered.subarray(1), recovered.subarray(0, 1)]);
    return bech32.encode(prefix, [...words, ...bech32.toWords(signature)], false);
  }

  test('a signet invoice (lntbs)', () => {
    const text = encodeBolt11({ network: 'tbs', amountMsat: 1_000n, timestamp: 1_700_000_000, paymentHash: '55'.repeat(32), description: 's' }, key);
    assert.ok(text.startsWith('lntbs10n1'));
    const inv = decodeBolt11(`lightning:${text.toUpperCase()} `);
    assert.equal(inv.network, 'tbs');
    assert.equal(inv.amountMsat, 1_000n);
    assert.equal(inv.paymentRequest, text);
    assert.equal(inv.minFinalCltvExpiry, 18);
  });

  test('only the first field of a kind counts; p and s fields of the wrong length are skipped', () => {
    const inv = decodeBolt11(
      signed('lnbcrt', [
        bytesField(1, hash('aa').subarray(1)),
        bytesField(1, hash('bb')),
        bytesField(1, hash('cc')),
        bytesField(16, hash('dd').subarray(2)),
        bytesField(19, Buffer.from(nodeKey, 'hex')),
        bytesField(13, Buffer.from('first')),
        bytesField(13, Buffer.from('second')),
        field(6, [1, 0]),
        field(6, [2, 0]),
      ]),
    );
    assert.equal(inv.paymentHash, 'bb'.repeat(32));
    assert.equal(inv.paymentSecret, undefined);
    assert.equal(inv.description, 'first');
    assert.equal(inv.expiry, 32);
    assert.equal(inv.payeeNodeKey, nodeKey);
  });

  test('an n field of the wrong length is skipped; the key is recovered from the signature', () => {
    const other = Buffer.from(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true));
    const inv = decodeBolt11(signed('lnbcrt', [bytesField(1, hash('bb')), bytesField(19, other.subarray(1)), bytesField(19, Buffer.from(nodeKey, 'hex'))]));
    assert.equal(inv.payeeNodeKey, nodeKey);
  });

  test('fallbacks of unknown versions are skipped', () => {
    const inv = decodeBolt11(signed('lnbcrt', [bytesField(1, hash('bb')), field(9, [19, ...bech32.toWords(hash('cc'))]), field(9, [18, ...bech32.toWords(hash('dd').subarray(0, 20))])]));
    assert.deepEqual(inv.fallbackAddresses, [{ version: 18, program: 'dd'.repeat(20) }]);
  });

  test('route hint bytes short of a whole hop are dropped', () => {
    const hop = Buffer.concat([Buffer.from(nodeKey, 'hex'), Buffer.alloc(8, 1), Buffer.from([0, 0, 0, 1, 0, 0, 0, 2, 0, 3])]);
    const inv = decodeBolt11(signed('lnbcrt', [bytesField(1, hash('bb')), bytesField(3, Buffer.concat([hop, hop.subarray(0, 40)]))]));
    assert.deepEqual(inv.routeHints, [
      [{ pubkey: nodeKey, shortChannelId: '0101010101010101', feeBaseMsat: 1, feeProportionalMillionths: 2, cltvExpiryDelta: 3 }],
    ]);
  });

  const REJECTED: [string, string, number[][]][] = [
    ['no payment hash', 'lnbcrt', [bytesField(13, Buffer.from('x'))]],
    ['a field running past the signature', 'lnbcrt', [bytesField(1, hash('bb')), [13, 0, 9, 1, 2]]],
    ['a description that is not UTF-8', 'lnbcrt', [bytesField(1, hash('bb')), bytesField(13, Buffer.from([0x41, 0xff]))]],
    ['an amount with a leading zero', 'lnbcrt01u', [bytesField(1, hash('bb'))]],
    ['an unknown network', 'lnsb', [bytesField(1, hash('bb'))]],
    ['a P2SH fallback that is not a 20-byte hash', 'lnbcrt', [bytesField(1, hash('bb')), field(9, [18, ...bech32.toWords(hash('dd').subarray(0, 19))])]],
    ['an n field that did not sign', 'lnbcrt', [bytesField(1, hash('bb')), bytesField(19, Buffer.from(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true)))]],
  ];
  test('rejects: a recovery id above 3', () => {
    const { prefix, words } = bech32.decode(signed('lnbcrt', [bytesField(1, hash('bb'))]) as `${string}1${string}`, false);
    const signature = bech32.fromWords(words.slice(-104));
    assert.ok(decodeBolt11(bech32.encode(prefix, words, false)));
    signature[64] += 4;
    assert.throws(() => decodeBolt11(bech32.encode(prefix, [...words.slice(0, -104), ...bech32.toWords(signature)], false)), /recovery id/);
  });
  for (const [name, prefix, fields] of REJECTED) {
    test(`rejects: ${name}`, () => {
      assert.throws(() => decodeBolt11(signed(prefix, fields)));
    });
  }
});

describe("an own node's invoice, read without its signature", () => {
  test('the same fields as decodeBolt11, the payee not recovered; a bad checksum is still refused', () => {
    const invoice = encodeBolt11(
      { network: 'bcrt', timestamp: Math.floor(Date.now() / 1000), amountMsat: 21_000n, paymentHash: SPEC_HASH, description: 'own', expiry: 600 },
      SPEC_SECRET,
    );
    const { payeeNodeKey, ...full } = decodeBolt11(invoice);
    assert.equal(payeeNodeKey, SPEC_KEY);
    const own = decodeOwnBolt11(invoice);
    assert.deepEqual(own, full);
    assert.equal('payeeNodeKey' in own, false);
    const broken = invoice.slice(0, -1) + (invoice.endsWith('q') ? 'p' : 'q');
    assert.throws(() => decodeOwnBolt11(broken));
  });
});
