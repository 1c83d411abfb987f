// Gathers Ferry's claims that fall due close together into one claimBatch transaction (boltz-core 4.x's
// EtherSwap.claimBatch): each claim costs a transaction's base gas only once per batch. Nothing is kept here that
// a crash could lose: a caller whose claim was not sent yet simply calls again (the engine's effect is replayed).
import type { ContractLockupValues, ContractTransaction } from '@ferry/sdk/chains/contract-chain.js';

export interface ClaimRequest {
  values: ContractLockupValues;
  preimage: string;
}

interface Waiting extends ClaimRequest {
  resolve(tx: ContractTransaction): void;
  reject(error: unknown): void;
}

export class ClaimBatcher {
  private waiting: Waiting[] = [];
  private timer?: NodeJS.Timeout;

  /** `send` claims one batch (one or more requests) once mined: per request, the transaction or why it failed. */
  constructor(
    private readonly windowMs: number,
    private readonly send: (requests: ClaimRequest[]) => Promise<(ContractTransaction | Error)[]>,
  ) {}

  /** Resolves with the transaction that claimed the values, sent at most `windowMs` after the first waiting claim. */
  claim(values: ContractLockupValues, preimage: string): Promise<ContractTransaction> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ values, preimage, resolve, reject });
      this.timer ??= setTimeout(() => void this.flush(), this.windowMs);
    });
  }

  private async flush(): Promise<void> {
    this.timer = undefined;
    const entries = this.waiting.splice(0);
    // The same swap asked twice (a replayed effect) is claimed once: a second entry would revert the whole batch.
    const batch = [...new Map(entries.map((entry) => [entry.values.preimageHash, entry])).values()];
    try {
      const results = new Map((await this.send(batch)).map((result, i) => [batch[i].values.preimageHash, result]));
      for (const entry of entries) {
        const result = results.get(entry.values.preimageHash)!;
        if (result instanceof Error) entry.reject(result);
        else entry.resolve(result);
      }
    } catch (error) {
      for (const entry of entries) entry.reject(error);
    }
  }
}
