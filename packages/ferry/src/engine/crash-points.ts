// Fault injection for the crash tests: with FERRY_CRASH_AT=<point>, the process kills itself with SIGKILL the
// moment it reaches that point, as a power cut would. Points are named in the engine where a crash is most
// dangerous (between deciding and doing, between doing and recording). Unset in production: a no-op.
export type CrashPointName =
  | 'submarine.lockup-seen' // lockup recorded, payment not yet started
  | 'submarine.payment-in-flight' // the Lightning payment was sent, its result not yet recorded
  | 'reverse.invoice-accepted' // hold invoice accepted recorded, lockup not yet sent
  | 'reverse.lockup-broadcast' // lockup broadcast, not yet recorded as sent
  | 'server-lockup.preimage-seen' // the client's claim of Ferry's lockup seen and its preimage recorded, nothing done with it
  | 'user-lockup.claim-broadcast' // Ferry's script-path claim of a user lockup broadcast, not yet recorded
  | 'fee-bump.replacement-recorded' // a claim's or refund's fee-bumped replacement recorded, not yet broadcast
  | 'covenant-claim.built'; // a registered swap's lockup recorded and its covenant claim built, not yet broadcast

export function crashPoint(name: CrashPointName): void {
  if (process.env.FERRY_CRASH_AT === name) {
    process.stderr.write(`FERRY_CRASH_AT=${name}: killing the process\n`);
    process.kill(process.pid, 'SIGKILL');
  }
}
