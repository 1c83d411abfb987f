// Subscribing to a swap means "tell me its current status, then every change". The current status is read from
// storage while changes keep arriving, so the two must be merged without ever showing an older status after a
// newer one: we start listening before reading, and a change heard during the read replaces what the read
// returned (the engine publishes only after committing, so the change is at least as new as the read).
import type { SwapStatusBody } from '@ferry/sdk/protocol/index.js';
import type { StatusFeed, StatusListener } from './status-feed.ts';

export interface SnapshotWatch {
  feed: StatusFeed;
  ids: readonly string[];
  /** Current status of one swap, undefined when unknown. */
  read: (id: string) => Promise<SwapStatusBody | undefined>;
  /** Called once, synchronously before any live change, with the known ids in the order asked. */
  onSnapshot: (found: { id: string; status: SwapStatusBody }[]) => void;
  onChange: StatusListener;
}

/** Returns one stop function per id (every id is watched, known or not: a swap may appear later). */
export async function watchWithSnapshot(watch: SnapshotWatch): Promise<Map<string, () => void>> {
  const held = new Map<string, SwapStatusBody>();
  let live = false;
  const stops = new Map<string, () => void>();
  for (const id of new Set(watch.ids)) {
    stops.set(
      id,
      watch.feed.subscribe(id, (changed, status) => {
        if (live) watch.onChange(changed, status);
        else held.set(changed, status);
      }),
    );
  }
  let read: (SwapStatusBody | undefined)[];
  try {
    read = await Promise.all([...stops.keys()].map((id) => watch.read(id)));
  } catch (error) {
    for (const stop of stops.values()) stop();
    throw error;
  }
  const found: { id: string; status: SwapStatusBody }[] = [];
  [...stops.keys()].forEach((id, i) => {
    const status = held.get(id) ?? read[i];
    if (status) found.push({ id, status });
  });
  try {
    watch.onSnapshot(found);
  } catch (error) {
    for (const stop of stops.values()) stop();
    throw error;
  }
  live = true;
  return stops;
}
