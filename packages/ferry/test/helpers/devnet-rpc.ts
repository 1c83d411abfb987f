// A JSON-RPC client for a devnet node in tests: raw answers, results, expected errors, and wallet calls
// through /wallet/<name> (Rpc.for). Every assert.ok carries a message (tsx's one-line output hangs node otherwise).
import assert from 'node:assert/strict';

export interface RpcError {
  code: number;
  message: string;
}

/** Where a node's RPC listens and its credentials (ElementsDevnet and the Bitcoin devnet both have them). */
export interface RpcEndpoint {
  rpcUrl: string;
  rpcUser: string;
  rpcPassword: string;
}

export class Rpc {
  constructor(
    private readonly endpoint: RpcEndpoint,
    private readonly wallet?: string,
  ) {}

  /** The same node, its calls made for one wallet. */
  for(wallet: string): Rpc {
    return new Rpc(this.endpoint, wallet);
  }

  async raw(method: string, ...params: unknown[]): Promise<{ result: unknown; error: RpcError | null }> {
    return JSON.parse(await this.text(method, ...params)) as { result: unknown; error: RpcError | null };
  }

  /** The answer's bytes as the node wrote them (how amounts are written is part of the contract). */
  async text(method: string, ...params: unknown[]): Promise<string> {
    const auth = Buffer.from(`${this.endpoint.rpcUser}:${this.endpoint.rpcPassword}`).toString('base64');
    const path = this.wallet === undefined ? '' : `/wallet/${encodeURIComponent(this.wallet)}`;
    const response = await fetch(this.endpoint.rpcUrl + path, {
      method: 'POST',
      headers: { Authorization: `Basic ${auth}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '1.0', id: 1, method, params }),
    });
    return response.text();
  }

  async call<T = unknown>(method: string, ...params: unknown[]): Promise<T> {
    const { result, error } = await this.raw(method, ...params);
    if (error) throw new Error(`${method}: ${error.code} ${error.message}`);
    return result as T;
  }

  /** The error a call must fail with. */
  async error(method: string, ...params: unknown[]): Promise<RpcError> {
    const { error } = await this.raw(method, ...params);
    assert.ok(error, `${method} was expected to fail`);
    return error;
  }
}
