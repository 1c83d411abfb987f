// Status reads are the service's capacity: wallets poll GET /v2/swap/{id} every few seconds per open swap, and the
// answer changes only when the swap's row does. So the serialized status body of each swap read lately is kept here,
// and a read costs a map lookup instead of a database read, a status body and JSON. An entry is dropped on every
// write of its row this process makes (SwapStore) and, with several instances on PostgreSQL, on every notice of a
// write any instance made (instances/index.ts); while those notices cannot be heard, nothing is kept. A read that
// was under way when its swap was dropped does not keep what it read: it may predate the write.

/** One read of a swap's row in flight; `dirty` once the swap was dropped meanwhile. */
interface Fill {
  readers: number;
  dirty: boolean;
}

/** Swaps whose status body is kept; the one kept longest goes first. */
const CAPACITY = 100_000;

export class StatusCache {
  private readonly bodies = new Map<string, string>();
  private readonly fills = new Map<string, Fill>();

  constructor(
    private enabled = true,
    private readonly capacity = CAPACITY,
  ) {}

  /** The kept status body of a swap, as JSON text; undefined when none is kept. */
  text(id: string): string | undefined {
    return this.bodies.get(id);
  }

  /**
   * Reads a swap's status body as JSON through the cache: the kept text, or `read`'s answer (undefined: no such
   * swap, which is not kept), kept unless the swap was dropped while `read` ran.
   */
  async read(id: string, read: () => Promise<string | undefined>): Promise<string | undefined> {
    const kept = this.bodies.get(id);
    if (kept !== undefined) return kept;
    if (!this.enabled) return read();
    let fill = this.fills.get(id);
    if (fill === undefined) this.fills.set(id, (fill = { readers: 0, dirty: false }));
    fill.readers++;
    try {
      const text = await read();
      if (text !== undefined && !fill.dirty && this.enabled) this.keep(id, text);
      return text;
    } finally {
      if (--fill.readers === 0 && this.fills.get(id) === fill) this.fills.delete(id);
    }
  }

  /** The swap's row was written (or is about to be): its body is read again next time. */
  drop(id: string): void {
    this.bodies.delete(id);
    const fill = this.fills.get(id);
    if (fill !== undefined) {
      fill.dirty = true;
      this.fills.delete(id);
    }
  }

  /** Writes can no longer be heard (another instance's notices are lost): keep nothing until `resume`. */
  suspend(): void {
    this.enabled = false;
    this.bodies.clear();
    for (const fill of this.fills.values()) fill.dirty = true;
    this.fills.clear();
  }

  /** Every write is heard again (from here on): keep bodies again. */
  resume(): void {
    this.enabled = true;
  }

  get size(): number {
    return this.bodies.size;
  }

  private keep(id: string, text: string): void {
    this.bodies.set(id, text);
    if (this.bodies.size > this.capacity) this.bodies.delete(this.bodies.keys().next().value!);
  }
}
