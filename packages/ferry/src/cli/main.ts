// The `ferry` command. Each command loads only the modules it runs (dynamic imports): Ferry with its devnet takes
// seconds of CPU to load, which `ferry devnet pay` or a usage mistake should not pay for (on a busy machine each
// `ferry` process started several times slower than the work it did).
import { loadConfig, ConfigError, type FerryConfig } from '../config/index.ts';
import { createLogger } from '../log/index.ts';
import { jsonLogs } from '../log/format.ts';
import { version } from '../version.ts';
import { parseArgs } from './args.ts';

async function usage(): Promise<string> {
  const [devnetToolsUsage, { swapUsage }, { adminUsage }, { keysUsage }, { initUsage }] = await Promise.all([
    import('./devnet.ts').then((devnet) => devnet.devnetToolsUsage()),
    import('./swap.ts'),
    import('./admin.ts'),
    import('./keys.ts'),
    import('./init.ts'),
  ]);
  return `ferry ${version}: a non-custodial swap service

usage:
  ferry start [--config FILE]        run Ferry (zero-config: embedded regtest devnet, SQLite in ./data)
  ferry doctor [--config FILE] [--json]  check every configured backend; exits 1 when one would break swaps
  ferry devnet [--config FILE]       run only the devnet
  ferry devnet info [--config FILE]  print devnet.json (endpoints and credentials of the running devnet)
  ferry devnet config [--config FILE]  print ferry.toml: the devnet's nodes as a Ferry configuration (ferry start --config)
  ferry version                      print the version and the database schema version it expects

${devnetToolsUsage}
${swapUsage}
${adminUsage}
${keysUsage}
${initUsage}
options:
  --config FILE     TOML configuration file (or FERRY_CONFIG)
  --data-dir DIR    data directory (or FERRY_DATA_DIR; default ./data)
`;
}

function configFrom(flags: Record<string, string | true>): FerryConfig {
  const file = typeof flags.config === 'string' ? flags.config : undefined;
  const env = { ...process.env };
  if (typeof flags['data-dir'] === 'string') env.FERRY_DATA_DIR = flags['data-dir'];
  return loadConfig({ file, env });
}

function untilSignal(): Promise<string> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}

async function run(argv: string[]): Promise<number> {
  const { words, flags } = parseArgs(argv);
  const [command = 'help', sub, ...rest] = words;
  if (command === 'version' || flags.version) {
    // the schema version this code migrates a database to (docs/operations.md#upgrading)
    const { SCHEMA_VERSION } = await import('../db/migrations.ts');
    process.stdout.write(`${version}\ndatabase schema ${SCHEMA_VERSION}\n`);
    return 0;
  }
  if (flags.help || command === 'help') {
    process.stdout.write(await usage());
    return 0;
  }
  // init writes the file --config names: there is no configuration to load yet.
  if (command === 'init') return (await import('./init.ts')).runInitCommand(flags);
  const config = configFrom(flags);
  const logger = createLogger({ level: config.log.level, json: jsonLogs(config.log.format) });

  if (command === 'start') {
    const { startFerry } = await import('../app.ts');
    // Listening for the stop signal before starting: a SIGTERM while Ferry starts (its API may already answer)
    // then stops it cleanly once started, instead of killing it half-way.
    const stopRequested = untilSignal();
    const ferry = await startFerry(config, logger);
    const signal = await stopRequested;
    logger.info('stopping', { signal });
    await ferry.close();
    return 0;
  }
  if (command === 'doctor') return (await import('./doctor.ts')).runDoctorCommand(config, flags.json === true);
  if (command === 'swap') return (await import('./swap.ts')).runSwapCommand(sub, rest, flags, config);
  if (command === 'keys') return (await import('./keys.ts')).runKeysCommand(sub, config);
  if (command === 'admin') return (await import('./admin.ts')).runAdminCommand(sub, rest, flags, config);
  if (command === 'devnet') return (await import('./devnet.ts')).runDevnetCommand(sub, rest, flags, config, logger, untilSignal);
  process.stderr.write(`unknown command: ${words.join(' ')}\n\n${await usage()}`);
  return 2;
}

export async function main(argv: string[]): Promise<void> {
  try {
    process.exitCode = await run(argv);
  } catch (error) {
    const { StartRefused } = await import('../doctor/run.ts');
    if (error instanceof StartRefused) {
      process.stderr.write(`ferry start: ${error.message}`);
      process.exitCode = 1;
      return;
    }
    const { SecretsRefused } = await import('../secrets/at-rest.ts');
    const { PassphraseError } = await import('../secrets/passphrase.ts');
    if (error instanceof SecretsRefused || error instanceof PassphraseError) {
      process.stderr.write(`ferry: ${error.message}\n`);
      process.exitCode = 1;
      return;
    }
    const { SchemaTooNewError } = await import('../db/errors.ts');
    if (error instanceof SchemaTooNewError) {
      process.stderr.write(`ferry: ${error.message}\n`);
      process.exitCode = 1;
      return;
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`ferry: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  }
}
