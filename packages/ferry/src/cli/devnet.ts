// `ferry devnet`: the devnet's own command line. Alone (`ferry devnet`) it runs the devnet for a Ferry started on its
// own and writes <dataDir>/ferry.toml, that Ferry's configuration of the devnet's nodes as an operator writes one
// for their daemons (`ferry devnet config` prints it); `ferry devnet info` prints devnet.json, and the tools
// (`mine`, `pay`, ...), the devnet package's own (@ferry/devnet/cli/tools.js), drive a running devnet through the
// endpoints devnet.json lists.
import type { FerryConfig } from '../config/index.ts';
import { devnetOptionsOf } from '../config/devnet.ts';
import { readDevnetInfo } from '@ferry/devnet/info-file.js';
import type { Logger } from '../log/index.ts';

/** The tools' part of `ferry --help`, from the devnet package that holds them (loaded for help only). */
export async function devnetToolsUsage(): Promise<string> {
  return (await import('@ferry/devnet/cli/tools.js')).devnetToolsUsage;
}

/** Resolves with the name of the signal that ends the devnet. */
export type UntilSignal = () => Promise<string>;

function devnetInfo(config: FerryConfig, hint: string) {
  try {
    return readDevnetInfo(config.dataDir);
  } catch {
    process.stderr.write(`no devnet.json in ${config.dataDir}: start the devnet first (${hint})\n`);
    return undefined;
  }
}

export async function runDevnetCommand(sub: string | undefined, rest: string[], flags: Record<string, string | true>, config: FerryConfig, logger: Logger, untilSignal: UntilSignal): Promise<number> {
  if (sub === undefined) return runDevnetAlone(config, logger, untilSignal);
  if (sub === 'info') {
    const info = devnetInfo(config, 'ferry devnet');
    if (info === undefined) return 1;
    process.stdout.write(JSON.stringify(info, null, 2) + '\n');
    return 0;
  }
  if (sub === 'config') {
    const info = devnetInfo(config, 'ferry devnet');
    if (info === undefined) return 1;
    const { ferryConfigToml } = await import('@ferry/devnet/ferry-config.js');
    process.stdout.write(ferryConfigToml(info, config.lightning.backend));
    return 0;
  }
  const info = devnetInfo(config, 'ferry devnet or ferry start');
  if (info === undefined) return 1;
  const { runDevnetTool, UsageError } = await import('@ferry/devnet/cli/tools.js');
  try {
    const ok = await runDevnetTool(info, sub, rest, flags, (value) => process.stdout.write(JSON.stringify(value, null, 2) + '\n'));
    return ok ? 0 : 1;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(error.message + '\n');
      return 2;
    }
    process.stderr.write(`ferry devnet ${sub}: ${(error as Error).message}\n`);
    return 1;
  }
}

/** The devnet alone, until a signal: Ferry's node of `lightning.backend`'s kind is the one ferry.toml names. */
async function runDevnetAlone(config: FerryConfig, logger: Logger, untilSignal: UntilSignal): Promise<number> {
  const [{ startDevnet }, { writeFerryConfig }] = await Promise.all([import('@ferry/devnet/index.js'), import('@ferry/devnet/ferry-config.js')]);
  const lightning = config.lightning.backend;
  const devnet = await startDevnet(devnetOptionsOf(config, config.devnet.cln || lightning === 'cln'));
  try {
    const { bitcoin, elements, evm, cln } = devnet.info;
    const ferryConfig = writeFerryConfig(config.dataDir, devnet.info, lightning);
    logger.info('devnet running', {
      bitcoin: bitcoin.rpcUrl,
      elements: elements.rpcUrl,
      evm: evm.rpcUrl,
      ...(cln?.cln && { cln: cln.cln.restUrl, clnHoldGrpc: cln.cln.hold?.grpcUrl }),
      info: `${config.dataDir}/devnet.json`,
      config: ferryConfig,
    });
    await untilSignal();
  } finally {
    await devnet.close();
  }
  return 0;
}
