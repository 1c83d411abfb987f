// A reverse swap's step in a follower, whichever chain it pays on (follow.ts for UTXO chains, follow-contract.ts for
// contract chains): claim once the service's lockup is claimable and not yet claimed — a claim the client refuses to
// make (VerificationError) ends the swap, one that fails otherwise is tried again —, and end on the machine's final
// statuses. How to claim and what counts as claimable are the follower's.
import { VerificationError } from './errors.ts';
import { FINAL_STATUSES, type StatusUpdate } from './types.ts';
import type { StatusLoop } from './status-loop.ts';

export interface ReverseStep {
  update: StatusUpdate;
  claimable: boolean;
  claimed: boolean;
  /** Claims and reports the claim. */
  claim(): Promise<void>;
  finish(result: { success: boolean; message?: string }): void;
  retryLater: StatusLoop<unknown>['retryLater'];
}

export async function reverseStep(step: ReverseStep): Promise<void> {
  const { status } = step.update;
  if (step.claimable && !step.claimed) {
    try {
      await step.claim();
    } catch (error) {
      if (error instanceof VerificationError) return step.finish({ success: false, message: `not claiming: ${error.message}` });
      step.retryLater(step.update, `claiming failed: ${(error as Error).message}`);
    }
  } else if (FINAL_STATUSES.reverse.success.includes(status)) {
    step.finish({ success: true });
  } else if (FINAL_STATUSES.reverse.failure.includes(status)) {
    step.finish({ success: false, message: 'the Lightning payment, if any, goes back to the payer' });
  }
}
