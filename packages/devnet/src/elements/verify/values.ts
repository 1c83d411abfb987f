// Elements' confidential value and asset fields as liquidjs-lib parses them (a prefix byte, then an
// explicit amount or asset id, or a commitment), read the way elementsd's CConfidential* types do.

export const MAX_MONEY = 2_100_000_000_000_000n; // Elements' MAX_MONEY (21M coins of 1e8 units)

export type Field = { kind: 'null' } | { kind: 'explicit'; bytes: Uint8Array } | { kind: 'commitment'; bytes: Uint8Array };

/** CConfidentialValue: null (0x00), explicit (0x01 ‖ 8-byte big-endian amount) or commitment (0x08/0x09 ‖ x). */
export function readValue(bytes: Uint8Array | undefined): Field | undefined {
  return readField(bytes, 9, [0x08, 0x09]);
}

/** CConfidentialAsset: null, explicit (0x01 ‖ 32-byte id) or commitment (0x0a/0x0b ‖ x). */
export function readAsset(bytes: Uint8Array | undefined): Field | undefined {
  return readField(bytes, 33, [0x0a, 0x0b]);
}

/** CConfidentialNonce: null, explicit (0x01 ‖ 32 bytes) or an ECDH public key (0x02/0x03 ‖ x). */
export function readNonce(bytes: Uint8Array | undefined): Field | undefined {
  return readField(bytes, 33, [0x02, 0x03]);
}

/** Undefined for bytes elementsd would not have deserialized (IsValid() false). */
function readField(bytes: Uint8Array | undefined, explicitSize: number, commitmentPrefixes: number[]): Field | undefined {
  if (bytes === undefined || bytes.length === 0 || (bytes.length === 1 && bytes[0] === 0)) return { kind: 'null' };
  if (bytes[0] === 0x01 && bytes.length === explicitSize) return { kind: 'explicit', bytes };
  if (commitmentPrefixes.includes(bytes[0]) && bytes.length === 33) return { kind: 'commitment', bytes };
  return undefined;
}

export function explicitAmount(field: Field & { kind: 'explicit' }): bigint {
  return Buffer.from(field.bytes).readBigUInt64BE(1);
}

export function moneyRange(amount: bigint): boolean {
  return amount >= 0n && amount <= MAX_MONEY;
}

/** An asset id as elementsd displays it → the 32 bytes a transaction carries. */
export function assetIdBytes(displayHex: string): Uint8Array {
  if (!/^[0-9a-f]{64}$/i.test(displayHex)) throw new RangeError(`not an asset id: ${displayHex}`);
  return Uint8Array.from(Buffer.from(displayHex, 'hex').reverse());
}

/** CScript::IsUnspendable(): starts with OP_RETURN or is larger than MAX_SCRIPT_SIZE. */
export function isUnspendable(script: Uint8Array): boolean {
  return (script.length > 0 && script[0] === 0x6a) || script.length > 10_000;
}
