// What the watcher tells its subscribers. Amounts are integer satoshi; hex is lowercase; txids are in
// display byte order (as RPC shows them).

export interface BlockRef {
  height: number;
  hash: string;
}

export interface Outpoint {
  txid: string;
  vout: number;
}

/** An output paying a watched script. confirmations 0 = seen in the mempool. */
export interface LockupEvent {
  chain: string;
  txid: string;
  vout: number;
  value: bigint;
  scriptHex: string;
  /** Set when the output cannot count as a lockup whatever its value (Liquid: another asset, or not unblindable). */
  refusal?: string;
  txHex: string;
  confirmations: number;
  blockHeight?: number;
  blockHash?: string;
}

/** An input spending a watched outpoint; `witness` is the input's witness stack (hex items). */
export interface SpendEvent {
  chain: string;
  outpoint: Outpoint;
  txid: string;
  inputIndex: number;
  witness: string[];
  txHex: string;
  confirmations: number;
  blockHeight?: number;
  blockHash?: string;
}

/** A tracked transaction (a reported lockup or spend, or one passed to watchTransaction) got deeper. */
export interface ConfirmationEvent {
  chain: string;
  txid: string;
  confirmations: number;
  blockHeight: number;
  blockHash: string;
}

export interface BlockEvent extends BlockRef {
  chain: string;
}

/** The blocks above forkHeight were disconnected (listed from the old tip down). */
export interface ReorgEvent {
  chain: string;
  disconnected: BlockRef[];
  forkHeight: number;
  newTip: BlockRef;
}

export interface ChainEvents {
  lockup: LockupEvent;
  spend: SpendEvent;
  confirmation: ConfirmationEvent;
  block: BlockEvent;
  reorg: ReorgEvent;
}

export type ChainEventType = keyof ChainEvents;

/**
 * Handlers may be async: the watcher awaits them before it saves the checkpoint of the block that
 * produced the event, so a crash between seeing and handling an event replays that block on restart.
 */
export type ChainEventHandler<K extends ChainEventType> = (event: ChainEvents[K]) => void | Promise<void>;

export type ChainSubscriber = { [K in ChainEventType]?: ChainEventHandler<K> };
