// The client SDK in Node: the platform-neutral core (index.ts, re-exported whole) and what needs Node — the client
// store in files (FileClientStore: swaps, rescue key, refund files under a directory), refund files read from and
// written to disk, and the `ws` package as the status stream's WebSocket, since Node 20 has no global one.
import './node/websocket.ts';

export * from './index.ts';
export { FileClientStore, FileStorage, defaultClientDir, writePrivateFile } from './node/file-store.ts';
export { readRefundFile, writeRefundFiles } from './node/refund-files.ts';
