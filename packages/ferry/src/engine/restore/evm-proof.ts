// The proof a restore by EVM address must carry: the address' EIP-191 signature over the reference's text with its
// checksummed form and a timestamp within 60 s of our clock. A proof is accepted once: the same (address,
// timestamp) again is a replay (in this process; across instances the 60 s window is what bounds it).
import { getAddress, verifyMessage } from 'ethers';
import { SwapError } from '@ferry/sdk/protocol/errors.js';
import { EVM_RESTORE_VALIDITY_SECONDS, evmRestoreMessage } from '@ferry/sdk/protocol/evm-restore.js';
import type { EvmRestoreRequest } from '@ferry/sdk/protocol/wire.js';

const refused = (message: string) => new SwapError('unprocessable', message);

/** Proofs seen within their window, by address and timestamp; bounded so a flood of valid proofs cannot grow it. */
export class UsedProofs {
  private readonly seen = new Map<string, number>();

  constructor(private readonly limit = 100_000) {}

  /** False when this proof was used already. */
  use(address: string, timestamp: number, nowSeconds: number): boolean {
    for (const [key, at] of this.seen) {
      // Oldest first (insertion order): stop at the first one still inside its window.
      if (at >= nowSeconds - EVM_RESTORE_VALIDITY_SECONDS && this.seen.size < this.limit) break;
      this.seen.delete(key);
    }
    const key = `${address}/${timestamp}`;
    if (this.seen.has(key)) return false;
    this.seen.set(key, Math.max(timestamp, nowSeconds));
    return true;
  }
}

/** The proven address, lower case as the index keeps it; SwapError 'unprocessable' for any proof that fails. */
export function verifyEvmRestoreProof(request: EvmRestoreRequest, used: UsedProofs, nowMs = Date.now()): string {
  let address: string;
  try {
    address = getAddress(request.address.startsWith('0x') ? request.address : `0x${request.address}`);
  } catch {
    // Mixed case that is not the EIP-55 checksum is a typo, not another spelling.
    throw refused('invalid address: not an EVM address (checksummed or lower case)');
  }
  const now = Math.floor(nowMs / 1000);
  if (!Number.isSafeInteger(request.timestamp) || Math.abs(now - request.timestamp) > EVM_RESTORE_VALIDITY_SECONDS) {
    throw refused('signature timestamp is not within the validity window');
  }
  let signer: string;
  try {
    const signature = request.signature.startsWith('0x') ? request.signature : `0x${request.signature}`;
    signer = verifyMessage(evmRestoreMessage(address, request.timestamp), signature);
  } catch {
    throw refused('invalid signature');
  }
  if (signer !== address) throw refused('signature does not match address');
  if (!used.use(address.toLowerCase(), request.timestamp, now)) throw refused('signature was used already: sign a new timestamp');
  return address.toLowerCase();
}
