// getblockheader's JSON for either devnet node: the fields both chains share (placement, version, times, nTx,
// neighbours) around the chain's own header fields (Bitcoin's proof of work, Elements' signed-block fields).
interface HeaderEntry {
  hash: string;
  height: number;
  medianTime: number;
  block: { header: { version: number; merkleRoot: string; time: number; prevHash: string }; txs: readonly unknown[] };
}

interface HeaderNode<E> {
  height: number;
  chain: { isActive(entry: E): boolean };
  blockAt(height: number): { hash: string } | undefined;
}

const hex32 = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');

/** The header JSON, chainFields placed after mediantime as Core and elementsd place them. */
export function headerJson<E extends HeaderEntry>(node: HeaderNode<E>, entry: E, chainFields: Record<string, unknown>): Record<string, unknown> {
  const active = node.chain.isActive(entry);
  const { header } = entry.block;
  const next = active ? node.blockAt(entry.height + 1) : undefined;
  return {
    hash: entry.hash,
    confirmations: active ? node.height - entry.height + 1 : -1,
    height: entry.height,
    version: header.version,
    versionHex: hex32(header.version),
    merkleroot: header.merkleRoot,
    time: header.time,
    mediantime: entry.medianTime,
    ...chainFields,
    nTx: entry.block.txs.length,
    ...(entry.height > 0 ? { previousblockhash: header.prevHash } : {}),
    ...(next ? { nextblockhash: next.hash } : {}),
  };
}
