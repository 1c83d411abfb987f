// The Lightning network on a Bitcoin node over Bitcoin Core's JSON-RPC (the devnet's own node or bitcoind):
// heights and new blocks by polling, and each channel funded by a real transaction to the two nodes' 2-of-2
// P2WSH output, mined into a block.
import { p2ms, p2wsh } from '@scure/btc-signer';
import { CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';
import type { ChannelFunding, LightningChain } from './chain.ts';

const REGTEST = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef };

export interface BitcoinRpcChainOptions {
  url: string;
  user: string;
  password: string;
  wallet: string; // pays for channel funding
  pollMs?: number;
}

export class BitcoinRpcChain implements LightningChain {
  private readonly rpc: CoreRpcClient;
  private readonly wallet: CoreRpcClient;
  private readonly listeners = new Set<(height: number) => void>();
  private timer: NodeJS.Timeout | undefined;
  private seen = -1;
  private polling = false;

  constructor(private readonly options: BitcoinRpcChainOptions) {
    this.rpc = new CoreRpcClient({ url: options.url, user: options.user, password: options.password });
    this.wallet = this.rpc.wallet(options.wallet);
  }

  height(): Promise<number> {
    return this.rpc.getBlockCount();
  }

  onBlock(listener: (height: number) => void): () => void {
    this.listeners.add(listener);
    if (this.timer === undefined) {
      this.timer = setInterval(() => void this.poll(), this.options.pollMs ?? 250);
      this.timer.unref();
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.timer !== undefined) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  // Exposed so a caller that just mined can have the network see the block without waiting for the timer.
  async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const height = await this.rpc.getBlockCount();
      if (height !== this.seen) {
        this.seen = height;
        for (const listener of this.listeners) listener(height);
      }
    } catch {
      // The node may be restarting; the next poll tries again.
    } finally {
      this.polling = false;
    }
  }

  async fundChannel(request: { capacitySat: number; openerKey: string; peerKey: string }): Promise<ChannelFunding> {
    // BOLT 3: the funding script lists the two funding keys in lexicographic order.
    const keys = [request.openerKey, request.peerKey].sort().map((k) => Uint8Array.from(Buffer.from(k, 'hex')));
    const output = p2wsh(p2ms(2, keys), REGTEST);
    const address = output.address!;
    const sentAt = await this.rpc.getBlockCount();
    const txid = await this.wallet.sendToAddress(address, request.capacitySat / 1e8);
    const [mined] = await this.rpc.generateToAddress(1, await this.wallet.getNewAddress());
    // A block mined meanwhile (blockIntervalMs, another miner) may hold the transaction instead of ours.
    let block = await this.rpc.getBlock(mined);
    while (!block.tx.includes(txid)) {
      if (block.height <= sentAt + 1 || !block.previousblockhash) throw new Error(`funding transaction ${txid} was not mined`);
      block = await this.rpc.getBlock(block.previousblockhash);
    }
    const tx = await this.rpc.getRawTransaction(txid, block.hash);
    const vout = tx.vout.find((o) => o.scriptPubKey.address === address)?.n;
    if (vout === undefined) throw new Error(`funding transaction ${txid} has no output to ${address}`);
    await this.poll();
    return { txid, vout, blockHeight: block.height, txIndex: block.tx.indexOf(txid) };
  }
}
