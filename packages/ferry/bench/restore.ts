// Restore on a large store: POST /v2/swap/restore's search (xpub gap scan, or a key list, through the client key
// index; or an EVM address with its signed proof, through the address index) with 1,000,000 swaps stored, next to a plain status read (the row by id, as GET /v2/swap/{id} answers),
// measured in the same run on the same database. FERRY_BENCH_RESTORE_SWAPS sets the store's size;
// FERRY_BENCH_RESTORE_POSTGRES=postgres://... runs it on PostgreSQL (in a fresh schema, dropped afterwards).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { Wallet } from 'ethers';
import { evmRestoreMessage } from '@ferry/sdk/protocol/index.js';
import { hex } from '@scure/base';
import { openStorage, type Storage } from '../src/db/index.ts';
import type { EngineContext } from '../src/engine/context.ts';
import { restoreSwaps } from '../src/engine/restore/index.ts';
import { statusBody } from '../src/engine/status-body.ts';
import { generateSwapId } from '../src/swaps/ids.ts';
import { startClock, type Rate } from './rate.ts';

const STORED = Number(process.env.FERRY_BENCH_RESTORE_SWAPS ?? 1_000_000);
const ROWS_PER_STATEMENT = 400; // 12 parameters each: under SQLite's 32,766
const WALLET_SWAPS = 20; // at indices 0, 2, 4, ...: the scan reads two windows of 50
const tree = { claimLeaf: { version: 192, output: 'a9'.repeat(40) }, refundLeaf: { version: 192, output: '20'.repeat(40) } };

/** A reverse swap to RBTC claimed into `address`: what a restore by address answers. */
function contractData(address: string) {
  return { contract: { address: '0x' + '33'.repeat(20), claimAddress: address, refundAddress: '0x' + '44'.repeat(20) }, onchainAmount: 100_000, invoiceAmount: 100_500 };
}

function swapData(clientKey: string) {
  return { refundPublicKey: clientKey, claimPublicKey: '03' + '11'.repeat(32), swapTree: tree, lockupScript: '5120' + '22'.repeat(32), expectedAmount: 100_000, pricing: { rate: 1, percentage: 0.1, minerFee: 300 } };
}

/**
 * `count` submarine swap rows, each with its client key row, in multi-row statements inside transactions; with
 * `address`, reverse swaps to RBTC with that client address row instead.
 */
async function fill(storage: Storage, keys: (i: number) => string, count: number, createdAt: number, address?: (i: number) => string): Promise<string[]> {
  const ids: string[] = [];
  for (let done = 0; done < count; done += ROWS_PER_STATEMENT * 25) {
    await storage.transaction(async (_repos, tx) => {
      for (let start = done; start < Math.min(count, done + ROWS_PER_STATEMENT * 25); start += ROWS_PER_STATEMENT) {
        const swaps: (string | number)[] = [];
        const keyRows: string[] = [];
        const end = Math.min(count, start + ROWS_PER_STATEMENT);
        for (let i = start; i < end; i++) {
          const id = generateSwapId();
          ids.push(id);
          const key = keys(i);
          const [type, data] = address === undefined ? ['submarine', swapData(key)] : ['reverse', contractData(address(i))];
          swaps.push(id, type, 'BTC/BTC', 'transaction.lockupFailed', randomBytes(32).toString('hex'), `lnbcrt${id}`, i, 500, `bcrt1p${id}`, JSON.stringify(data), createdAt + i, createdAt + i);
          keyRows.push(address === undefined ? key : address(i).toLowerCase(), id);
        }
        const n = end - start;
        const rows = (width: number, extra = '') =>
          Array.from({ length: n }, (_, r) => `(${Array.from({ length: width }, (_, c) => `$${r * width + c + 1}`).join(', ')}${extra})`).join(', ');
        await tx.execute(
          `INSERT INTO swaps (id, type, pair, status, preimage_hash, invoice, key_index, timeout_block_height, lockup_address, data, created_at, updated_at, version) VALUES ${rows(12, ', 1')}`,
          swaps,
        );
        await tx.execute(`INSERT INTO ${address === undefined ? 'swap_client_keys (public_key' : 'swap_client_addresses (address'}, swap_id) VALUES ${rows(2)}`, keyRows);
      }
    });
  }
  return ids;
}

async function timed(n: number, run: (i: number) => Promise<unknown>): Promise<Rate> {
  const stop = startClock(n);
  for (let i = 0; i < n; i++) await run(i);
  return stop();
}

const line = (name: string, rate: Rate) => `${name}: ${(1000 / rate.perSecond).toFixed(3)} ms each, ${rate.perSecond.toFixed(0)}/s (N=${rate.n})`;

export async function benchRestore(): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'ferry-bench-restore-'));
  try {
    const postgres = process.env.FERRY_BENCH_RESTORE_POSTGRES;
    const schema = `ferry_bench_restore_${randomBytes(4).toString('hex')}`;
    const storage = await openStorage(postgres ? `${postgres}${postgres.includes('?') ? '&' : '?'}schema=${schema}` : `sqlite:${join(dir, 'ferry.sqlite')}`);
    const wallet = HDKey.fromMasterSeed(randomBytes(32));
    const account = wallet.derive('m/44/0/0/0');
    const walletKey = (i: number) => hex.encode(account.deriveChild(2 * i).publicKey!);
    const fillStart = performance.now();
    // Strangers' keys need not be on the curve to weigh on the index like real ones.
    const ids = await fill(storage, () => '02' + randomBytes(32).toString('hex'), STORED - WALLET_SWAPS, 1_700_000_000_000);
    await fill(storage, walletKey, WALLET_SWAPS, 1_800_000_000_000);
    // Contract swaps, a tenth as many, each of a stranger's address; then the EVM wallet's.
    await fill(storage, () => '', STORED / 10, 1_750_000_000_000, () => '0x' + randomBytes(20).toString('hex'));
    const evmWallet = Wallet.createRandom();
    await fill(storage, () => '', WALLET_SWAPS, 1_800_000_000_000, () => evmWallet.address);
    const fillSeconds = (performance.now() - fillStart) / 1000;
    const ctx = { storage } as EngineContext; // restore reads storage only
    const found = await restoreSwaps(ctx, { xpub: wallet.publicExtendedKey });
    if (found.length !== WALLET_SWAPS) throw new Error(`restore found ${found.length} swaps, not ${WALLET_SWAPS}`);
    const status = async (i: number) => statusBody((await storage.swaps.get(ids[(i * 7919) % ids.length]))!);
    const keys = Array.from({ length: WALLET_SWAPS }, (_, i) => walletKey(i));
    await timed(200, status); // warm up both paths
    await timed(5, () => restoreSwaps(ctx, { xpub: wallet.publicExtendedKey }));
    const read = await timed(5_000, status);
    const byXpub = await timed(50, () => restoreSwaps(ctx, { xpub: wallet.publicExtendedKey }));
    const byKeys = await timed(500, () => restoreSwaps(ctx, { publicKeys: keys }));
    // A proof is taken once: one per call, signed beforehand, at distinct timestamps inside the 60 s window.
    const now = Math.floor(Date.now() / 1000);
    const proofs = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => ({ address: evmWallet.address, timestamp: now - 50 + i, signature: await evmWallet.signMessage(evmRestoreMessage(evmWallet.address, now - 50 + i)) })),
    );
    const byAddress = await timed(proofs.length, async (i) => {
      const answer = await restoreSwaps(ctx, proofs[i]);
      if (answer.length !== WALLET_SWAPS) throw new Error(`restore by address found ${answer.length} swaps, not ${WALLET_SWAPS}`);
    });
    if (postgres) await storage.database.execute(`DROP SCHEMA "${schema}" CASCADE`);
    await storage.close();
    return [
      `${STORED.toLocaleString('en')} swaps stored (${postgres ? 'PostgreSQL' : 'SQLite'}) and ${(STORED / 10).toLocaleString('en')} contract swaps in ${fillSeconds.toFixed(0)} s; the wallet has ${WALLET_SWAPS} of each`,
      line('status read (row by id → status body)', read),
      line(`restore by xpub (gap limit 50: ${2 * WALLET_SWAPS + 50} keys derived, ${Math.ceil((2 * WALLET_SWAPS + 50) / 50)} index lookups)`, byXpub),
      line(`restore by ${WALLET_SWAPS} public keys (one index lookup)`, byKeys),
      line(`restore by EVM address (EIP-191 proof checked, one index lookup, ${WALLET_SWAPS} swaps of ${STORED / 10} with addresses)`, byAddress),
      `restore by xpub costs ${(read.perSecond / byXpub.perSecond).toFixed(0)} status reads; by key list ${(read.perSecond / byKeys.perSecond).toFixed(1)}`,
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
