// The little the watcher needs from a logger; the console serves when the caller passes none.

export interface WatcherLogger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export const consoleLogger: WatcherLogger = {
  debug: () => {},
  info: (message, fields) => console.info(message, fields ?? ''),
  warn: (message, fields) => console.warn(message, fields ?? ''),
  error: (message, fields) => console.error(message, fields ?? ''),
};

export const silentLogger: WatcherLogger = { debug() {}, info() {}, warn() {}, error() {} };
