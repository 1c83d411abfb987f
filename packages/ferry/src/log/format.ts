// The `log.format` setting: JSON lines for log collectors (journald, Loki, ...), readable lines for a person, or
// auto (JSON unless stdout is a terminal, what Ferry always did).
import { ConfigError } from '../config/index.ts';

const formats = ['auto', 'json', 'text'];

/** Whether lines are JSON under `format`; a ConfigError for anything but auto, json and text. */
export function jsonLogs(format: string, terminal: boolean = process.stdout.isTTY === true): boolean {
  if (!formats.includes(format)) throw new ConfigError(`config key log.format must be one of ${formats.join(', ')}, got ${JSON.stringify(format)}`);
  return format === 'json' || (format === 'auto' && !terminal);
}
