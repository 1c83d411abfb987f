// Which of a swap's keys are the client's, by swap type: what restore searches by (POST /v2/swap/restore). The
// same fields the database migration 3 reads to fill the index for swaps stored before it.
import type { SwapData } from '@ferry/sdk/swaps/machine.js';
import { SwapType } from '@ferry/sdk/swaps/status.js';

export type ClientKeyRole = 'refund' | 'claim';

/** The client's keys of a swap with the role each plays: a submarine swap's refund key, a reverse swap's claim key, both of a chain swap. */
export function clientKeysOf(type: string, data: SwapData): { publicKey: string; role: ClientKeyRole }[] {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const side = (name: string) => (data[name] ?? {}) as SwapData;
  const keys =
    type === SwapType.Submarine
      ? [{ publicKey: text(data.refundPublicKey), role: 'refund' as const }]
      : type === SwapType.Reverse
        ? [{ publicKey: text(data.claimPublicKey), role: 'claim' as const }]
        : type === SwapType.Chain
          ? [
              { publicKey: text(side('user').refundPublicKey), role: 'refund' as const },
              { publicKey: text(side('server').claimPublicKey), role: 'claim' as const },
            ]
          : [];
  return keys.filter((key): key is { publicKey: string; role: ClientKeyRole } => key.publicKey !== undefined);
}
