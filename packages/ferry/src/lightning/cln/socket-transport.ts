// Core Lightning's own JSON-RPC, over lightningd's unix socket (`<lightning-dir>/<network>/lightning-rpc`): the
// same methods, named parameters and results clnrest relays (clnrest is a Rust plugin, and an operator may not run
// it), so Ferry's CLN adapter can drive a node on the same machine with no rune. JSON-RPC 2.0 over one connection,
// requests matched to answers by id (lightningd answers concurrently, not in order); each answer ends with a blank
// line. Errors arrive as ClnRestError with httpStatus 0 (no HTTP) and lightningd's JSON-RPC code.
import { createConnection, type Socket } from 'node:net';
import { ClnRestError, type ClnCaller } from './transport.ts';
import { parseClnJson } from './json.ts';

export interface ClnSocketTransportOptions {
  path: string; // the lightning-rpc socket
  timeoutMs?: number;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export class ClnSocketTransport implements ClnCaller {
  private socket: Socket | undefined;
  private buffer = '';
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly options: ClnSocketTransportOptions) {}

  /** Calls `method` with named parameters; `timeoutMs` overrides the default for calls that wait (pay). */
  call<T>(method: string, params: Record<string, unknown> = {}, timeoutMs?: number): Promise<T> {
    const id = this.nextId++;
    const named = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined));
    const text = JSON.stringify({ jsonrpc: '2.0', id, method, params: named }, (_key, value: unknown) => (typeof value === 'bigint' ? Number(value) : value));
    return new Promise<T>((resolve, reject) => {
      const limit = timeoutMs ?? this.options.timeoutMs ?? 30_000;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`lightningd did not answer ${method} within ${limit} ms`));
      }, limit);
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer });
      this.connection().write(text);
    });
  }

  /** Closes the socket; calls still waiting fail. */
  close(): void {
    this.socket?.destroy();
    this.fail(new Error('the lightning-rpc connection was closed'));
  }

  private connection(): Socket {
    if (this.socket && !this.socket.destroyed) return this.socket;
    const socket = createConnection(this.options.path);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.receive(chunk));
    socket.on('error', (error) => this.fail(new Error(`lightning-rpc ${this.options.path}: ${error.message}`)));
    socket.on('close', () => {
      if (this.socket === socket) this.socket = undefined;
      this.buffer = '';
      this.fail(new Error(`lightning-rpc ${this.options.path}: connection closed`));
    });
    socket.unref();
    this.socket = socket;
    return socket;
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) !== -1) {
      const text = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      if (text.trim() === '') continue;
      let answer: { id?: unknown; result?: unknown; error?: { code?: number; message?: string } };
      try {
        answer = parseClnJson(text) as typeof answer;
      } catch {
        this.fail(new Error(`lightning-rpc: an answer that is not JSON: ${text.slice(0, 200)}`));
        this.socket?.destroy();
        return;
      }
      const waiting = typeof answer.id === 'number' ? this.pending.get(answer.id) : undefined;
      if (!waiting) continue; // a notification, or an answer after its timeout
      this.pending.delete(answer.id as number);
      clearTimeout(waiting.timer);
      if (answer.error) waiting.reject(new ClnRestError(0, answer.error.code, answer.error.message ?? JSON.stringify(answer.error)));
      else waiting.resolve(answer.result);
    }
    if (this.pending.size === 0) this.socket?.unref();
  }

  private fail(error: Error): void {
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      waiting.reject(error);
      this.pending.delete(id);
    }
  }
}
