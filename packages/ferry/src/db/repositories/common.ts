// Small helpers the repositories share.

/** Milliseconds since the epoch; injectable so tests control timestamps. */
export type Clock = () => number;

export interface RepositoryOptions {
  now?: Clock;
}

/** "$3, $4, $5" for an IN list whose first value is parameter `first`. */
export function placeholderList(first: number, count: number): string {
  return Array.from({ length: count }, (_, i) => `$${first + i}`).join(', ');
}

export function parseObject(text: string): Record<string, unknown> {
  return JSON.parse(text) as Record<string, unknown>;
}
