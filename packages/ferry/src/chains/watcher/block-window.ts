// The hashes of the last processed blocks: what a reorg is detected and walked back against.
import type { BlockRef } from '@ferry/sdk/chains/events.js';

interface WindowEntry {
  hash: string;
  previousHash?: string;
}

export class BlockWindow {
  private readonly blocks = new Map<number, WindowEntry>();

  constructor(private readonly depth: number) {}

  add(height: number, hash: string, previousHash?: string): void {
    this.blocks.set(height, { hash, previousHash });
    this.blocks.delete(height - this.depth);
  }

  get(height: number): WindowEntry | undefined {
    return this.blocks.get(height);
  }

  /** The parent of a remembered block, when its hash is known without asking the node. */
  parent(block: BlockRef): BlockRef | undefined {
    const entry = this.blocks.get(block.height);
    if (entry?.hash !== block.hash) return undefined;
    // Entries are only added on top of their parent, so the entry below is the parent.
    const previousHash = entry.previousHash ?? this.blocks.get(block.height - 1)?.hash;
    return previousHash === undefined ? undefined : { height: block.height - 1, hash: previousHash };
  }

  dropAbove(height: number): void {
    for (const key of this.blocks.keys()) if (key > height) this.blocks.delete(key);
  }
}
