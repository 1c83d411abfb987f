export { StatusFeed, type StatusListener } from './status-feed.ts';
export { watchWithSnapshot, type SnapshotWatch } from './snapshot.ts';
