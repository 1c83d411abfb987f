// `ferry doctor`: runs every check of every configured backend (src/doctor) and prints the table, or one JSON
// object per check with --json; exits 1 when a check failed (something that would break swaps), 0 otherwise.
import type { FerryConfig } from '../config/index.ts';
import { failures, formatJson, formatTable } from '../doctor/report.ts';
import { runDoctor } from '../doctor/run.ts';
import { createLogger } from '../log/index.ts';

export async function runDoctorCommand(config: FerryConfig, json: boolean): Promise<number> {
  // The EVM check's own connection log lines would interleave with the table: only errors are let through.
  const logger = createLogger({ level: 'error', write: (line) => process.stderr.write(line + '\n') });
  const results = await runDoctor({ config, logger: logger.child('doctor') });
  process.stdout.write(json ? formatJson(results) : formatTable(results));
  return failures(results).length > 0 ? 1 : 0;
}
