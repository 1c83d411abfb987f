// What the admin commands do, on storage and the engine: list and show swaps (with their effect log), the
// operator's balances, retry a stuck swap's failed effects, and refund Ferry's lockup of a swap whose timeout has
// passed now rather than at the next block (never before: an early refund is what a timeout protects against);
// list the operator alerts and acknowledge one; take a backup of an SQLite database.
import type { StoredAlerts } from '../alerts/stored-alerts.ts';
import { alertView as alertFields } from '../alerts/view.ts';
import type { ChainRegistry } from '@ferry/sdk/chains/backend.js';
import type { EvmBackend } from '../chains/evm/backend.ts';
import type { AlertRecord, Storage, SwapRecord } from '../db/index.ts';
import { backupDatabase, type BackupTaken } from './backup.ts';
import type { SwapEngine } from '../engine/engine.ts';
import type { LightningBackend } from '../lightning/backend.ts';

export class AdminError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface AdminDependencies {
  storage: Storage;
  chains: ChainRegistry;
  evm: ReadonlyMap<string, EvmBackend>;
  lightning: Record<string, LightningBackend>;
  swaps?: SwapEngine;
  /** Where `ferry admin alerts clear` acknowledges an alert; without it alerts are cleared in storage alone. */
  alerts?: Pick<StoredAlerts, 'acknowledge'>;
}

const alertView = (alert: AlertRecord) => ({ ...alertFields(alert), active: alert.clearedAt === undefined });

const summary = (swap: SwapRecord) => ({
  id: swap.id,
  type: swap.type,
  pair: swap.pair,
  status: swap.status,
  createdAt: new Date(swap.createdAt).toISOString(),
  updatedAt: new Date(swap.updatedAt).toISOString(),
});

export class AdminService {
  constructor(private readonly deps: AdminDependencies) {}

  async swaps(options: { status?: string; limit: number }): Promise<ReturnType<typeof summary>[]> {
    if (options.status) return (await this.deps.storage.swaps.listByStatus([options.status], { limit: options.limit })).map(summary);
    const rows = await this.deps.storage.database.query<{ id: string }>('SELECT id FROM swaps ORDER BY created_at DESC LIMIT $1', [options.limit]);
    const swaps = await Promise.all(rows.map((row) => this.deps.storage.swaps.get(row.id)));
    return swaps.filter((swap): swap is SwapRecord => swap !== undefined).map(summary);
  }

  async swap(id: string): Promise<Record<string, unknown>> {
    const swap = await this.found(id);
    const effects = await this.deps.storage.effects.listForSwap(id);
    return { ...summary(swap), timeoutBlockHeight: swap.timeoutBlockHeight, data: swap.data, effects };
  }

  async balances(): Promise<Record<string, unknown>> {
    const chains: Record<string, number | string> = {};
    for (const [symbol, chain] of this.deps.chains) {
      chains[symbol] = chain.walletBalance ? await chain.walletBalance().catch((error: Error) => `unavailable: ${error.message}`) : 'unavailable';
    }
    for (const [symbol, evm] of this.deps.evm) {
      // wei to the API's units (10^-8 of the coin), as the EVM swaps count
      chains[symbol] = await evm.balance().then((wei) => Number(wei / 10n ** 10n), (error: Error) => `unavailable: ${error.message}`);
    }
    const lightning: Record<string, unknown> = {};
    for (const [symbol, node] of Object.entries(this.deps.lightning)) {
      lightning[symbol] = await node.getStats().then(
        (stats) => ({ channels: stats.channels, capacity: Number(stats.capacitySat) }),
        (error: Error) => `unavailable: ${error.message}`,
      );
    }
    return { chains, lightning };
  }

  /** Active alerts, newest first; with `all`, the latest `limit` alerts, cleared ones included (active first). */
  async alerts(options: { all: boolean; limit: number }): Promise<ReturnType<typeof alertView>[]> {
    const alerts = this.deps.storage.alerts;
    return (options.all ? await alerts.recent(options.limit) : (await alerts.active()).slice(0, options.limit)).map(alertView);
  }

  /** The operator's acknowledgement of an active alert; 404 when none of that kind and key is active. */
  async clearAlert(kind: string, key: string): Promise<{ kind: string; key: string; cleared: true }> {
    const cleared = this.deps.alerts
      ? await this.deps.alerts.acknowledge(kind, key)
      : (await this.deps.storage.alerts.clear(kind, key, 'operator', false)) !== undefined;
    if (!cleared) throw new AdminError(404, `no active alert ${kind} ${key}`);
    return { kind, key, cleared: true };
  }

  /** A consistent copy of the live SQLite database in `file` (backup.ts); PostgreSQL is refused, pointing to pg_dump. */
  backup(file: string): Promise<BackupTaken> {
    return backupDatabase(this.deps.storage.database, file);
  }

  async retry(id: string): Promise<{ id: string; reopened: number }> {
    await this.found(id);
    return { id, reopened: await this.engine().retryEffects(id) };
  }

  /**
   * Runs the timeout check of the swap's chains now, at their current heights, instead of at the next block: the
   * engine refunds Ferry's lockup only if the swap's timeout has passed, so this can never refund early.
   */
  async refund(id: string): Promise<{ id: string; before: string; status: string; heights: Record<string, number>; timeoutBlockHeight: number | null }> {
    const swap = await this.found(id);
    if (swap.type === 'submarine') {
      throw new AdminError(409, `swap ${id} is a submarine swap: its lockup is the client's, who refunds it (Ferry has nothing locked)`);
    }
    const engine = this.engine();
    const heights: Record<string, number> = {};
    for (const symbol of new Set(swap.pair.split('/'))) {
      if (this.deps.chains.has(symbol)) heights[symbol] = await engine.checkChainTimeouts(symbol);
    }
    await engine.whenIdle(id);
    return { id, before: swap.status, status: (await this.found(id)).status, heights, timeoutBlockHeight: swap.timeoutBlockHeight };
  }

  private engine(): SwapEngine {
    if (!this.deps.swaps) throw new AdminError(409, 'this Ferry runs no swap engine (no Lightning node)');
    return this.deps.swaps;
  }

  private async found(id: string): Promise<SwapRecord> {
    const swap = await this.deps.storage.swaps.get(id);
    if (!swap) throw new AdminError(404, `could not find swap with id: ${id}`);
    return swap;
  }
}
