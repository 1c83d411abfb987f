// An Elements wallet's issued addresses: each new address gets a key and a script-derived blinding key, and the
// wallet answers elementsd's getaddressinfo and dumpblindingkey for them (listunspent will find coins by script).
import { toHex } from '../../bitcoin/bytes.ts';
import { confidentialAddress, decodeAddress, unconfidentialAddress } from './address.ts';
import { ElementsKeys, type ElementsAddressKind, type KeyPair } from './keys.ts';
import type { Zkp } from './network.ts';

export interface WalletAddress {
  kind: ElementsAddressKind;
  branch: number; // 0 receive, 1 change
  index: number;
  key: KeyPair;
  script: Uint8Array;
  blinding: KeyPair;
  confidential: string;
  unconfidential: string;
}

/** The fields elementsd's getaddressinfo answers for an address (less timestamp and hdseedid). */
export interface AddressInfo {
  address: string;
  scriptPubKey: string;
  ismine: boolean;
  solvable: boolean;
  iswatchonly: boolean;
  isscript: boolean;
  iswitness: boolean;
  witness_version?: number;
  witness_program?: string;
  pubkey?: string;
  confidential: string;
  confidential_key: string;
  unconfidential: string;
  ischange: boolean;
  hdkeypath?: string;
  hdmasterfingerprint?: string;
  labels: string[];
}

export class ElementsWallet {
  readonly keys: ElementsKeys;
  private readonly byScript = new Map<string, WalletAddress>();
  private readonly next = new Map<string, number>();

  constructor(seed: Uint8Array, zkp: Zkp) {
    this.keys = new ElementsKeys(seed, zkp.ecc);
  }

  /** getnewaddress / getrawchangeaddress: the next key of the branch, shown as its confidential address. */
  newAddress(kind: ElementsAddressKind = 'bech32', change = false): WalletAddress {
    const branch = change ? 1 : 0;
    const index = this.next.get(`${kind}/${branch}`) ?? 0;
    this.next.set(`${kind}/${branch}`, index + 1);
    const key = this.keys.derive(kind, branch, index);
    const script = this.keys.outputScript(kind, key.publicKey);
    const blinding = this.keys.blindingKey(script);
    const entry: WalletAddress = {
      kind, branch, index, key, script, blinding,
      confidential: confidentialAddress(script, blinding.publicKey),
      unconfidential: unconfidentialAddress(script),
    };
    this.byScript.set(toHex(script), entry);
    return entry;
  }

  byOutputScript(script: Uint8Array): WalletAddress | undefined {
    return this.byScript.get(toHex(script));
  }

  /** The blinding private key of one of the wallet's scripts (what listunspent and unblindrawtransaction use). */
  blindingKeyOf = (script: Uint8Array): Uint8Array | undefined => this.byOutputScript(script)?.blinding.privateKey;

  /**
   * getaddressinfo: `confidential` is the address with the wallet's blinding key, `confidential_key` the key the
   * given address itself carries ("" for an unconfidential one), and a confidential address with a foreign
   * blinding key is not ours (elementsd: "Addresses we can not unblind outputs for aren't spendable").
   */
  addressInfo(text: string): AddressInfo {
    const decoded = decodeAddress(text);
    const own = this.byOutputScript(decoded.script);
    const carried = decoded.blindingKey ? toHex(decoded.blindingKey) : '';
    const mine = own !== undefined && (carried === '' || carried === toHex(own.blinding.publicKey));
    const script = decoded.script;
    const version = script[0] === 0 ? 0 : script[0] >= 0x51 && script[0] <= 0x60 ? script[0] - 0x50 : -1;
    const witness = version >= 0 && script.length >= 4 && script[1] === script.length - 2;
    return {
      address: text,
      scriptPubKey: toHex(decoded.script),
      ismine: mine,
      solvable: own !== undefined,
      iswatchonly: false,
      isscript: script.length === 23 && script[0] === 0xa9 && script[22] === 0x87, // P2SH
      iswitness: witness,
      ...(witness ? { witness_version: version, witness_program: toHex(script.subarray(2)) } : {}),
      ...(own?.kind === 'bech32' ? { pubkey: toHex(own.key.publicKey) } : {}),
      confidential: mine ? own.confidential : decoded.blindingKey ? text : decoded.unconfidential,
      confidential_key: carried,
      unconfidential: decoded.unconfidential,
      ischange: own?.branch === 1,
      ...(own
        ? { hdkeypath: this.keys.path(own.kind, own.branch, own.index), hdmasterfingerprint: this.keys.fingerprint }
        : {}),
      labels: own && own.branch === 0 ? [''] : [],
    };
  }

  /** dumpblindingkey: the hex blinding private key of one of the wallet's confidential addresses. */
  dumpBlindingKey(text: string): string {
    const decoded = decodeAddress(text);
    if (!decoded.blindingKey) throw new Error('Not a CT address');
    const own = this.byOutputScript(decoded.script);
    if (!own) throw new Error('Blinding key for address is unknown');
    return toHex(own.blinding.privateKey);
  }
}
