// `ferry doctor`: runs every check of every configured backend (src/doctor) and prints the table, or one JSON
// object per check with --json; exits 1 when a check failed (something that would break swaps), 0 otherwise.
// Backends left to the devnet are checked on the devnet running on the data directory (its devnet.json). An encrypted
// mnemonic is opened with the passphrase as `ferry start` takes it (file, FERRY_PASSPHRASE, or a question on the
// terminal), so the EVM operator account's balance is checked for real; a wrong passphrase fails as start would.
import { ConfigError, type FerryConfig } from '../config/index.ts';
import { withRunningDevnet } from '../config/devnet.ts';
import type { CheckResult } from '../doctor/check.ts';
import { failures, formatJson, formatTable } from '../doctor/report.ts';
import { runDoctor } from '../doctor/run.ts';
import { createLogger, type Logger } from '../log/index.ts';
import { PassphraseError } from '../secrets/passphrase.ts';
import { SecretsAtRest } from '../secrets/at-rest.ts';

/** The checks of the configured backends; no devnet running where the configuration leaves backends to it is one FAIL. */
async function check(config: FerryConfig, logger: Logger): Promise<CheckResult[]> {
  let checked: FerryConfig;
  try {
    checked = withRunningDevnet(config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return [{ check: 'configured', backend: 'devnet', result: 'FAIL', detail: error.message }];
  }
  // A passphrase that cannot be read (a configured file not there yet, as right after `ferry init`) matters only for
  // an encrypted mnemonic: opening one then fails the EVM check with the reason, as `ferry start` would refuse.
  let secrets: SecretsAtRest | undefined;
  let refused: PassphraseError | undefined;
  try {
    secrets = new SecretsAtRest(checked, logger);
  } catch (error) {
    if (!(error instanceof PassphraseError)) throw error;
    refused = error;
  }
  const openSealed =
    refused !== undefined
      ? async (): Promise<string> => {
          throw refused;
        }
      : secrets!.canOpenSealed
        ? async (path: string) => (await secrets!.read(path)).text
        : undefined;
  try {
    return await runDoctor({ config: checked, logger, openSealed });
  } finally {
    secrets?.forget();
  }
}

export async function runDoctorCommand(config: FerryConfig, json: boolean): Promise<number> {
  // The EVM check's own connection log lines would interleave with the table: only errors are let through.
  const logger = createLogger({ level: 'error', write: (line) => process.stderr.write(line + '\n') });
  const results = await check(config, logger.child('doctor'));
  process.stdout.write(json ? formatJson(results) : formatTable(results));
  return failures(results).length > 0 ? 1 : 0;
}
