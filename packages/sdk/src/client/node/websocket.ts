// The status stream's WebSocket in Node: a platform WebSocket (Node 22+) is kept; `ws` speaks the same API where
// there is none (Node 20). Imported for its effect by node.ts, and by Node programs that take only parts of the
// client (the `ferry swap` command) rather than the whole of node.ts.
import WebSocket from 'ws';
import { setDefaultWebSocket } from '../status-stream.ts';

if ((globalThis as { WebSocket?: unknown }).WebSocket === undefined) setDefaultWebSocket(WebSocket);
