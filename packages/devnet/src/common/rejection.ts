// A transaction a devnet node refuses, with Core's reject reason, debug text and RPC code: one class for both
// nodes, so the acceptance rules they share (replacement.ts) refuse the same way.

/** Core's RPC codes for rejected transactions. */
export const RPC_VERIFY_ERROR = -25; // also RPC_TRANSACTION_ERROR
export const RPC_VERIFY_REJECTED = -26;
export const RPC_VERIFY_ALREADY_IN_CHAIN = -27;

export class TxRejected extends Error {
  constructor(
    readonly reason: string,
    readonly debug = '',
    readonly code = RPC_VERIFY_REJECTED,
  ) {
    // Core's ValidationState::ToString().
    super(debug ? `${reason}, ${debug}` : reason);
  }
}
