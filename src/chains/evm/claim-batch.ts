// Gathers Ferry's claims that fall due close together into one claimBatch transaction (boltz-core 4.x's
// EtherSwap.claimBatch): each claim costs a transaction's base gas only once per batch. Nothing is kept here that
// a crash could lose: a caller whose claim was not sent yet simply calls again (the engine's effect is replayed).
import type { ContractLockupValues, ContractTransaction } from '../contract-chain.ts';

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

  /** `send` claims one batch (one or more requests) and resolves once it is mined. */
  constructor(
    private readonly windowMs: number,
    private readonly send: (requests: ClaimRequest[]) => Promise<ContractTransaction>,
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
      const tx = await this.send(batch);
      for (const entry of entries) entry.resolve(tx);
    } catch (error) {
      for (const entry of entries) entry.reject(error);
    }
  }
}
