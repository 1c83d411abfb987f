// `ferry doctor`'s runner: builds a client for every configured backend and runs its checks (zero-config's devnet
// nodes are configured backends by then: src/config/devnet.ts fills them in). `ferry start` runs the same checks
// before it serves and refuses to start on any FAIL (startChecks); `ferry doctor` prints them all.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';
import { servesEvm, servesLiquid, type FerryConfig } from '../config/index.ts';
import { pairsFromConfig } from '../config/pair.ts';
import { isSealed } from '../secrets/sealed.ts';
import { readHoldTls } from '../lightning/cln/hold/credentials.ts';
import type { HoldGrpcOptions } from '../lightning/cln/hold/client.ts';
import { ClnSocketTransport } from '../lightning/cln/socket-transport.ts';
import { ClnTransport } from '../lightning/cln/transport.ts';
import { LndTransport } from '../lightning/lnd/transport.ts';
import type { Logger } from '../log/index.ts';
import { errorText, type CheckResult, type CheckList } from './check.ts';
import { checkCln } from './cln.ts';
import { checkCoreNode } from './core.ts';
import { checkEvm } from './evm.ts';
import { checkLnd } from './lnd.ts';
import { liquidityNeeds } from './liquidity.ts';
import { failures, formatTable } from './report.ts';

/** `ferry start` refused to start: the failed checks, as the doctor's table shows them. */
export class StartRefused extends Error {
  constructor(readonly failed: CheckResult[]) {
    super(`refusing to start: ${failed.length} check${failed.length === 1 ? '' : 's'} failed (ferry doctor shows them all)\n${formatTable(failed)}`);
    this.name = 'StartRefused';
  }
}

export interface DoctorOptions {
  config: FerryConfig;
  logger: Logger;
  /** The operator's mnemonic, for the EVM account; undefined: read from its file (not created). */
  mnemonic?: string;
  /**
   * Opens an encrypted secret file with the operator's passphrase (file, environment or terminal, as `ferry start`
   * takes it); undefined: no passphrase at hand, an encrypted mnemonic is then not opened and its balance not checked.
   */
  openSealed?: (path: string) => Promise<string>;
}

/** A Core-family node's client, or the key to set when none is configured. */
function coreRpc(name: 'bitcoin' | 'liquid', node: FerryConfig['bitcoin']): CoreRpcClient {
  if (node.rpcUrl === '') throw new Error(`${name}.rpcUrl is not set`);
  return new CoreRpcClient({ url: node.rpcUrl, user: node.rpcUser, password: node.rpcPassword, wallet: node.wallet || undefined, timeoutMs: 10_000 });
}

/** The largest lockup Ferry may send on a chain: reverse and chain swaps lock up to a pair's `maximal`. */
function largestLockup(config: FerryConfig, symbol: string): number {
  return Math.max(0, ...pairsFromConfig(config).filter((p) => p.base === symbol).map((p) => p.limits.maximal));
}

/** The mnemonic, or why it is not known: not made yet, or encrypted with no passphrase at hand. */
async function mnemonicOf(options: DoctorOptions): Promise<{ mnemonic?: string; unknown?: string }> {
  if (options.mnemonic) return { mnemonic: options.mnemonic };
  const path = options.config.swap.mnemonicPath || join(options.config.dataDir, 'mnemonic');
  if (!existsSync(path)) return { unknown: 'no mnemonic yet (made at the first ferry start): the operator account is not known' };
  let text = readFileSync(path, 'utf8');
  if (isSealed(text)) {
    if (options.openSealed === undefined) {
      return { unknown: `${path} is encrypted and no passphrase was given (FERRY_PASSPHRASE_FILE, FERRY_PASSPHRASE or a terminal): the operator account is not known` };
    }
    text = await options.openSealed(path); // a wrong passphrase throws: the evm backend's FAIL, as ferry start would refuse
  }
  return { mnemonic: text.trim().split(/\s+/).join(' ') };
}

/** A backend whose client cannot even be built (no URL, unreadable files) is one FAIL. */
async function guarded(backend: string, body: () => Promise<CheckList>): Promise<CheckResult[]> {
  try {
    return (await body()).results;
  } catch (error) {
    return [{ check: 'configured', backend, result: 'FAIL', detail: errorText(error) }];
  }
}

async function bitcoinChecks(options: DoctorOptions): Promise<CheckResult[]> {
  const { config } = options;
  return guarded('bitcoin', async () => {
    const rpc = coreRpc('bitcoin', config.bitcoin);
    return checkCoreNode({ kind: 'bitcoin', backend: 'bitcoin', rpc, walletName: config.bitcoin.wallet, network: config.network, largestLockupSat: largestLockup(config, 'BTC') });
  });
}

async function liquidChecks(options: DoctorOptions): Promise<CheckResult[]> {
  const { config } = options;
  return guarded('liquid', async () => {
    const rpc = coreRpc('liquid', config.liquid);
    return checkCoreNode({ kind: 'elements', backend: 'liquid', rpc, walletName: config.liquid.wallet, network: config.network, largestLockupSat: largestLockup(config, 'L-BTC') });
  });
}

function holdOptions(config: FerryConfig): HoldGrpcOptions | undefined {
  const { grpcUrl, ...paths } = config.lightning.cln.hold;
  return grpcUrl === '' ? undefined : { url: grpcUrl, tls: readHoldTls(paths) };
}

async function lightningChecks(options: DoctorOptions): Promise<CheckResult[]> {
  const { config } = options;
  const backend = config.lightning.backend;
  const socket = backend === 'cln' ? config.lightning.cln.rpcSocket : '';
  if (config.lightning.restUrl === '' && socket === '') return [];
  const needs = liquidityNeeds(pairsFromConfig(config));
  // read inside the backend's checks: a certificate that cannot be read is that backend's FAIL, not a crash
  const tlsCert = () => (config.lightning.tlsCertPath ? readFileSync(config.lightning.tlsCertPath) : undefined);
  if (backend === 'cln') {
    return guarded('cln', async () => {
      const rpc =
        socket !== ''
          ? new ClnSocketTransport({ path: socket, timeoutMs: 10_000 })
          : new ClnTransport({ url: config.lightning.restUrl, rune: config.lightning.rune, tlsCert: tlsCert(), timeoutMs: 10_000 });
      try {
        return await checkCln({ rpc, hold: holdOptions(config), network: config.network, servesReverse: needs.largestReverseSat > 0, needs });
      } finally {
        if (rpc instanceof ClnSocketTransport) rpc.close();
      }
    });
  }
  return guarded('lnd', async () => {
    const macaroonHex = config.lightning.macaroon || (config.lightning.macaroonPath ? readFileSync(config.lightning.macaroonPath).toString('hex') : '');
    if (macaroonHex === '') throw new Error('LND needs a macaroon: lightning.macaroonPath or lightning.macaroon');
    const http = new LndTransport({ url: config.lightning.restUrl, macaroonHex, tlsCert: tlsCert(), timeoutMs: 10_000 });
    return checkLnd({ http, macaroonHex, network: config.network, needs });
  });
}

async function evmChecks(options: DoctorOptions): Promise<CheckResult[]> {
  const { config } = options;
  return guarded('evm', async () => {
    const { mnemonic, unknown } = await mnemonicOf(options);
    return checkEvm({ config, mnemonic, mnemonicUnknown: unknown, largestLockupSat: largestLockup(config, 'RBTC') });
  });
}

/** Every check of every configured backend, in the table's order. */
export async function runDoctor(options: DoctorOptions): Promise<CheckResult[]> {
  const { config } = options;
  const groups = await Promise.all([
    bitcoinChecks(options),
    servesLiquid(config) ? liquidChecks(options) : Promise.resolve([]),
    servesEvm(config) ? evmChecks(options) : Promise.resolve([]),
    lightningChecks(options),
  ]);
  return groups.flat();
}

/** `ferry start`'s gate: the doctor's checks; warnings are logged, failures refuse the start. */
export async function startChecks(options: DoctorOptions): Promise<void> {
  const started = Date.now();
  const results = await runDoctor(options);
  const warnings = results.filter((r) => r.result === 'warn').length;
  options.logger.info('backends checked', { checks: results.length, warnings, failures: failures(results).length, ms: Date.now() - started });
  for (const r of results.filter((r) => r.result === 'warn')) options.logger.warn('doctor', { check: r.check, backend: r.backend, detail: r.detail });
  const failed = failures(results);
  if (failed.length > 0) throw new StartRefused(failed);
}
