// The receiver of a covenant swap as the tests that run Ferry as processes see it (claim-covenant-restart.test.ts,
// instances.test.ts): it creates a reverse swap to L-BTC with a claim covenant to a fresh address of the devnet's user
// wallet, registers its preimage with Ferry's covenant claimer and goes offline; the tests then look for the claim of
// Ferry's lockup in the mempool and check what the address received.
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { Transaction } from 'liquidjs-lib';
import type { DevnetInfo } from '@ferry/devnet/index.js';
import { CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';
import { committedAmount } from '@ferry/sdk/chains/liquid/covenant.js';
import { policyAsset } from '@ferry/sdk/chains/liquid/network.js';
import { LndRestClient } from '../../src/lightning/lnd/client.ts';
import { SwapApi, newKeyPair, newPreimage } from '../helpers/swap-api.ts';

export class CovenantReceiver {
  private readonly elements: CoreRpcClient;
  private readonly wallet: CoreRpcClient;

  constructor(private readonly info: DevnetInfo) {
    const node = info.elements;
    this.elements = new CoreRpcClient({ url: node.rpcUrl, user: node.rpcUser, password: node.rpcPassword });
    this.wallet = this.elements.wallet(node.wallets.user);
  }

  /** The devnet's alice, who pays the swap's invoice. */
  payer(): LndRestClient {
    const alice = this.info.lightning.alice;
    return new LndRestClient({ url: alice.restUrl, macaroon: alice.macaroon });
  }

  /** A covenant swap created through `api`, registered with its covenant claimer; the amount the leaf commits to. */
  async registeredSwap(api: SwapApi, invoiceAmount: number) {
    const claim = newKeyPair();
    const { preimage, preimageHash } = newPreimage();
    const address = await this.wallet.getNewAddress();
    const body = { from: 'BTC', to: 'L-BTC', invoiceAmount, preimageHash: hex.encode(preimageHash), claimPublicKey: hex.encode(claim.publicKey), address, claimCovenant: true };
    const created = await api.expect('POST', '/v2/swap/reverse', body, 201);
    const registration = {
      address,
      preimage: hex.encode(preimage),
      tree: created.swapTree,
      blindingKey: created.blindingKey,
      claimPublicKey: hex.encode(claim.publicKey),
      refundPublicKey: created.refundPublicKey,
    };
    assert.deepEqual(await api.expect('POST', '/v2/swap/covenant', registration, 201), {});
    return { created, preimage, address, expected: committedAmount(created.swapTree.covenantClaimLeaf.output)! };
  }

  /** The mempool transaction that spends `txid`, once it is there. */
  spenderOf(txid: string, timeoutMs: number): Promise<Transaction> {
    return mempoolSpenderOf(this.elements, txid, timeoutMs);
  }

  /** Mines the claim and checks what the receiver's wallet got from it: the committed amount of L-BTC, nothing else. */
  async assertPaid(claimTx: Transaction, expected: number): Promise<void> {
    await this.elements.call('generatetoaddress', [1, await this.wallet.getNewAddress()]);
    const coins = (await this.wallet.call<Array<{ txid: string; amount: number; asset: string }>>('listunspent', [0]))
      .filter((coin) => coin.txid === claimTx.getId())
      .map((coin) => ({ amount: Math.round(coin.amount * 1e8), asset: coin.asset }));
    assert.deepEqual(coins, [{ amount: expected, asset: policyAsset('regtest') }], 'the address got the committed amount');
  }
}

/** The transaction in `elements`' mempool that spends an output of `txid` (a lockup's claim), once it is there. */
export async function mempoolSpenderOf(elements: CoreRpcClient, txid: string, timeoutMs: number): Promise<Transaction> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const candidate of await elements.call<string[]>('getrawmempool', [])) {
      const tx = Transaction.fromHex(await elements.call<string>('getrawtransaction', [candidate]));
      if (tx.ins.some((input) => Buffer.from(input.hash).reverse().toString('hex') === txid)) return tx;
    }
    if (Date.now() > deadline) throw new Error(`nothing spends ${txid} in the mempool`);
    await new Promise((resolve) => setTimeout(resolve, 200)); // polling the node's mempool, with the deadline above
  }
}

/** The txid of Ferry's lockup of a reverse swap, once Ferry has recorded it. */
export async function lockupOf(apiUrl: string, id: string): Promise<string> {
  const deadline = Date.now() + 90_000; // a restarted Ferry first resyncs its chains and invoices
  for (;;) {
    const answer = await new SwapApi(apiUrl).call('GET', `/v2/swap/reverse/${id}/transaction`);
    if (answer.status === 200) return answer.body.id as string;
    if (Date.now() > deadline) throw new Error(`no lockup for ${id}: ${JSON.stringify(answer.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 200)); // polling Ferry's API, with the deadline above
  }
}
