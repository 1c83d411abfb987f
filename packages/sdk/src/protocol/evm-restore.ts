// The text a wallet signs (EIP-191 personal_sign) to restore its swaps by EVM address, as the reference API defines
// it: shared by the service that checks the proof and the SDK that makes it, so the two cannot drift.

/** A signed restore request is accepted this long either side of the service's clock, seconds: limits replay. */
export const EVM_RESTORE_VALIDITY_SECONDS = 60;

/** `address` in its EIP-55 checksummed form; `timestamp` UNIX seconds. */
export const evmRestoreMessage = (address: string, timestamp: number): string => `Boltz swap restore\naddress: ${address}\ntimestamp: ${timestamp}`;
