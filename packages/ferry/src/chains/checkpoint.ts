// Where the watcher stands on each chain, so a restart resumes after the last processed block.
// Structurally the same as the `CheckpointStore` repository in src/db; declared here so the watcher
// depends on the shape, not on a storage engine.

export interface Checkpoint {
  height: number;
  hash: string;
}

export interface CheckpointStore {
  get(chain: string): Promise<Checkpoint | undefined>;
  set(chain: string, checkpoint: Checkpoint): Promise<void>;
}

/** For callers that do not persist: survives watcher restarts within one process only. */
export class MemoryCheckpointStore implements CheckpointStore {
  private readonly checkpoints = new Map<string, Checkpoint>();

  async get(chain: string): Promise<Checkpoint | undefined> {
    const checkpoint = this.checkpoints.get(chain);
    return checkpoint && { ...checkpoint };
  }

  async set(chain: string, checkpoint: Checkpoint): Promise<void> {
    this.checkpoints.set(chain, { height: checkpoint.height, hash: checkpoint.hash });
  }
}
