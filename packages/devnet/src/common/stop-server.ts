// Stopping a devnet node's HTTP face. Its clients (Ferry, the tests) keep connections alive or stream, which would
// hold close() forever; a node going down does not finish its answers either, so every connection drops at once.
import type { Server } from 'node:http';

export async function stopServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await closed;
}
