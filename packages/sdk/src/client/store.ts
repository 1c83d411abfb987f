// The client store: one JSON entry per swap under swaps/ (contract-chain swaps, RBTC, under contract-swaps/, and chain
// swaps with an RBTC side under contract-chain-swaps/: their records have other shapes), the rescue key in rescue-key.json, refund files under refunds/ — kept in a
// ClientStorage (storage.ts): files in Node (node/file-store.ts), localStorage in a browser, memory, or the wallet's
// own. Keys and preimages live here; the storage decides how they are protected.
import type { ContractChainRecord, ContractRecord, SwapRecord } from './records.ts';
import { refundFileJson, refundFilePng, type RefundFile } from './refund-file.ts';
import { RescueKey } from './rescue-key.ts';
import type { ClientStorage } from './storage.ts';

/** What rescue-key.json holds: the mnemonic and the next key index to hand out. */
interface RescueKeyFile {
  mnemonic: string;
  nextIndex: number;
}

const SAFE_ID = /^[A-Za-z0-9]{1,64}$/;
const RESCUE_KEY = 'rescue-key.json';

function entryOf(folder: string, id: string, extension = '.json'): string {
  if (!SAFE_ID.test(id)) throw new Error(`not a swap id: ${JSON.stringify(id)}`);
  return `${folder}/${id}${extension}`;
}

const byAge = (a: { createdAt: string; id: string }, b: { createdAt: string; id: string }): number => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);

export class ClientStore {
  constructor(readonly storage: ClientStorage) {}

  /** Where the store is, for messages. */
  get location(): string {
    return this.storage.location;
  }

  private readJson<T>(name: string): T | undefined {
    const text = this.storage.read(name);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  private writeJson(name: string, value: unknown): void {
    this.storage.write(name, JSON.stringify(value, null, 2) + '\n');
  }

  private listJson<T>(folder: string): T[] {
    return this.storage
      .list(folder)
      .filter((name) => name.endsWith('.json'))
      .map((name) => this.readJson<T>(`${folder}/${name}`)!)
      .filter((record) => record !== undefined);
  }

  save(record: SwapRecord): void {
    this.writeJson(entryOf('swaps', record.id), record);
  }

  has(id: string): boolean {
    return SAFE_ID.test(id) && this.storage.read(entryOf('swaps', id)) !== undefined;
  }

  load(id: string): SwapRecord {
    const record = this.readJson<SwapRecord>(entryOf('swaps', id));
    if (record === undefined) throw new Error(`no swap ${id} in the client store ${this.location}`);
    return record;
  }

  /** Every stored swap, oldest first. */
  list(): SwapRecord[] {
    return this.listJson<SwapRecord>('swaps').sort(byAge);
  }

  private readRescue(): RescueKeyFile | undefined {
    return this.readJson<RescueKeyFile>(RESCUE_KEY);
  }

  private writeRescue(file: RescueKeyFile): void {
    this.writeJson(RESCUE_KEY, file);
  }

  /** The store's rescue key, made on first use: every swap's key derives from it. */
  rescueKey(): RescueKey {
    const known = this.readRescue();
    if (known) return RescueKey.fromMnemonic(known.mnemonic);
    const key = RescueKey.generate();
    this.writeRescue({ mnemonic: key.mnemonic, nextIndex: 0 });
    return key;
  }

  /** Adopts a rescue key (e.g. the one a restore used) when the store has none yet; false when it has another. */
  adoptRescueKey(key: RescueKey): boolean {
    const known = this.readRescue();
    if (known) return known.mnemonic === key.mnemonic;
    this.writeRescue({ mnemonic: key.mnemonic, nextIndex: 0 });
    return true;
  }

  /** Hands out the next key index, written down before it is used so no two swaps share a key. */
  takeKeyIndex(): number {
    this.rescueKey();
    const take = (): number => {
      const file = this.readRescue()!;
      this.writeRescue({ ...file, nextIndex: file.nextIndex + 1 });
      return file.nextIndex;
    };
    return this.storage.exclusively ? this.storage.exclusively(RESCUE_KEY, take) : take();
  }

  /** Makes sure no index up to `index` is handed out again (after a restore found swaps up to it). */
  reserveKeyIndex(index: number): void {
    const file = this.readRescue();
    if (file && file.nextIndex <= index) this.writeRescue({ ...file, nextIndex: index + 1 });
  }

  /** Saves a swap's refund file as refunds/<id>.json and its PNG QR code as refunds/<id>.png; returns where both went. */
  writeRefundFiles(file: RefundFile): { json: string; png: string } {
    return {
      json: this.storage.write(entryOf('refunds', file.id), refundFileJson(file)),
      png: this.storage.write(entryOf('refunds', file.id, '.png'), refundFilePng(file)),
    };
  }

  saveContract(record: ContractRecord): void {
    this.writeJson(entryOf('contract-swaps', record.id), record);
  }

  hasContract(id: string): boolean {
    return SAFE_ID.test(id) && this.storage.read(entryOf('contract-swaps', id)) !== undefined;
  }

  loadContract(id: string): ContractRecord {
    const record = this.readJson<ContractRecord>(entryOf('contract-swaps', id));
    if (record === undefined) throw new Error(`no contract swap ${id} in the client store ${this.location}`);
    return record;
  }

  /** Every stored contract-chain swap, oldest first. */
  listContracts(): ContractRecord[] {
    return this.listJson<ContractRecord>('contract-swaps').sort(byAge);
  }

  saveContractChain(record: ContractChainRecord): void {
    this.writeJson(entryOf('contract-chain-swaps', record.id), record);
  }

  loadContractChain(id: string): ContractChainRecord {
    const record = this.readJson<ContractChainRecord>(entryOf('contract-chain-swaps', id));
    if (record === undefined) throw new Error(`no chain swap ${id} with a contract side in the client store ${this.location}`);
    return record;
  }

  /** Every stored chain swap with a contract side, oldest first. */
  listContractChains(): ContractChainRecord[] {
    return this.listJson<ContractChainRecord>('contract-chain-swaps').sort(byAge);
  }
}
