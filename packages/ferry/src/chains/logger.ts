// The little the watcher needs from a logger: Ferry's own, or a default that writes like the rest of Ferry.
import { createLogger, silentLogger, type Logger } from '../log/index.ts';

export type WatcherLogger = Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;

export const consoleLogger: WatcherLogger = createLogger({ component: 'watcher' });

export { silentLogger };
