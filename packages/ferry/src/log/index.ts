// Levelled logging. JSON lines when stdout is not a terminal (log collectors), readable lines when it is.

export type Level = 'debug' | 'info' | 'warn' | 'error';
const rank: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(component: string): Logger;
}

export interface LoggerOptions {
  level?: Level;
  json?: boolean;
  write?: (line: string) => void;
  component?: string;
}

function serializable(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value instanceof Error) out[key] = value.message;
    else if (typeof value === 'bigint') out[key] = value.toString();
    else out[key] = value;
  }
  return out;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const threshold = rank[options.level ?? 'info'];
  const json = options.json ?? !process.stdout.isTTY;
  const write = options.write ?? ((line: string) => process.stdout.write(line + '\n'));

  const emit = (level: Level, component: string | undefined, message: string, fields?: Record<string, unknown>) => {
    if (rank[level] < threshold) return;
    const extra = fields ? serializable(fields) : {};
    const time = new Date().toISOString();
    if (json) {
      write(JSON.stringify({ time, level, ...(component ? { component } : {}), message, ...extra }));
    } else {
      const rest = Object.entries(extra)
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join(' ');
      write(`${time} ${level.toUpperCase().padEnd(5)} ${component ? `[${component}] ` : ''}${message}${rest ? ' ' + rest : ''}`);
    }
  };

  const make = (component: string | undefined): Logger => ({
    debug: (m, f) => emit('debug', component, m, f),
    info: (m, f) => emit('info', component, m, f),
    warn: (m, f) => emit('warn', component, m, f),
    error: (m, f) => emit('error', component, m, f),
    child: (name) => make(component ? `${component}.${name}` : name),
  });
  return make(options.component);
}

/** For tests and library callers that want silence. */
export const silentLogger: Logger = createLogger({ level: 'error', write: () => {} });
