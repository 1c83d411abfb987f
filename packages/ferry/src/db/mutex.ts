// A FIFO async lock. SQLite has one connection per database handle, so transactions, whose bodies
// await between statements, must take turns or their statements would mix into one transaction.

export class Mutex {
  private tail: Promise<void> = Promise.resolve();
  private holders = 0;

  /** True when nobody holds the lock and nobody waits for it. */
  get idle(): boolean {
    return this.holders === 0;
  }

  /** Resolves, once every earlier caller has released, with the function that releases the lock. */
  async acquire(): Promise<() => void> {
    this.holders++;
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => {
      let released = false;
      release = () => {
        if (released) return;
        released = true;
        this.holders--;
        resolve();
      };
    });
    await previous;
    return release;
  }
}
