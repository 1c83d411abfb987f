// Minimal typing of the parts of bitcore-lib 11.5.1 that Ferry uses; its published @types are stale.
// bitcore-lib is CommonJS: only the default import exists at run time, so classes are reached through it.
declare module 'bitcore-lib' {
  class Script {
    constructor(from?: Buffer | string);
    static fromBuffer(buffer: Buffer): Script;
    static Interpreter: typeof Interpreter;
    toBuffer(): Buffer;
    toHex(): string;
  }

  class Interpreter {
    constructor();
    errstr: string;
    verify(
      scriptSig: Script,
      scriptPubkey: Script,
      tx: Transaction,
      nin: number,
      flags: number,
      witness: Buffer[],
      satoshis: number,
    ): boolean;
    static readonly SCRIPT_VERIFY_NONE: number;
    static readonly SCRIPT_VERIFY_P2SH: number;
    static readonly SCRIPT_VERIFY_STRICTENC: number;
    static readonly SCRIPT_VERIFY_DERSIG: number;
    static readonly SCRIPT_VERIFY_LOW_S: number;
    static readonly SCRIPT_VERIFY_NULLDUMMY: number;
    static readonly SCRIPT_VERIFY_SIGPUSHONLY: number;
    static readonly SCRIPT_VERIFY_MINIMALDATA: number;
    static readonly SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_NOPS: number;
    static readonly SCRIPT_VERIFY_CLEANSTACK: number;
    static readonly SCRIPT_VERIFY_CHECKLOCKTIMEVERIFY: number;
    static readonly SCRIPT_VERIFY_CHECKSEQUENCEVERIFY: number;
    static readonly SCRIPT_VERIFY_WITNESS: number;
    static readonly SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM: number;
    static readonly SCRIPT_VERIFY_MINIMALIF: number;
    static readonly SCRIPT_VERIFY_NULLFAIL: number;
    static readonly SCRIPT_VERIFY_WITNESS_PUBKEYTYPE: number;
    static readonly SCRIPT_VERIFY_CONST_SCRIPTCODE: number;
    static readonly SCRIPT_VERIFY_TAPROOT: number;
    static readonly SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_TAPROOT_VERSION: number;
    static readonly SCRIPT_VERIFY_DISCOURAGE_OP_SUCCESS: number;
    static readonly SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_PUBKEYTYPE: number;
  }

  class Output {
    constructor(args: { satoshis: number; script: Buffer | Script });
    readonly script: Script | null; // null when the bytes do not parse as a script
    readonly satoshis: number;
  }

  class Input {
    readonly script: Script;
    readonly sequenceNumber: number;
    witnesses?: Buffer[];
    output?: Output;
  }

  class Transaction {
    constructor(serialized?: Buffer | string);
    static Output: typeof Output;
    inputs: Input[];
    outputs: Output[];
    version: number;
    nLockTime: number;
  }

  /** A secp256k1 point: elliptic's short-curve point, which bitcore extends. */
  interface Point {
    readonly curve: { validate(point: Point): boolean };
    isInfinity(): boolean;
    validate(): Point;
  }

  const bitcore: {
    readonly version: string;
    readonly crypto: {
      readonly Point: { prototype: Point };
      Schnorr: { verify(publicKey: unknown, message: unknown, signature: unknown): boolean };
    };
    readonly PublicKey: {
      isValid(data: Buffer): boolean;
      prototype: { point: { x: { toString(base: number): string } }; computeTapTweakHash(merkleRoot?: Buffer): Buffer };
    };
    readonly Script: typeof Script;
    readonly Transaction: typeof Transaction;
  };
  export default bitcore;
  export type { Script, Interpreter, Output, Input, Transaction, Point };
}
