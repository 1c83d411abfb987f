// The client SDK in Node: the platform-neutral core (index.ts, re-exported whole) and what needs Node — the client
// store in files (FileClientStore: swaps, rescue key, refund files under a directory), refund files read from and
// written to disk, and the `ws` package as the status stream's WebSocket, since Node 20 has no global one.
import WebSocket from 'ws';
import { setDefaultWebSocket } from './status-stream.ts';

export * from './index.ts';
export { FileClientStore, FileStorage, defaultClientDir, writePrivateFile } from './node/file-store.ts';
export { readRefundFile, writeRefundFiles } from './node/refund-files.ts';

// A platform WebSocket (Node 22+) is kept; `ws` speaks the same API where there is none.
if ((globalThis as { WebSocket?: unknown }).WebSocket === undefined) setDefaultWebSocket(WebSocket);
