// `ferry doctor`'s output: a table for people, or one JSON object per check (--json) for scripts.
import type { CheckResult } from './check.ts';

const HEADERS: (keyof CheckResult)[] = ['check', 'backend', 'result', 'detail'];

export function formatTable(results: CheckResult[]): string {
  const widths = HEADERS.slice(0, 3).map((h) => Math.max(h.length, ...results.map((r) => r[h].length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]) : cell)).join('  ').trimEnd();
  return [line(HEADERS), ...results.map((r) => line(HEADERS.map((h) => r[h])))].join('\n') + '\n';
}

export const formatJson = (results: CheckResult[]): string => results.map((r) => JSON.stringify(r) + '\n').join('');

export const failures = (results: CheckResult[]): CheckResult[] => results.filter((r) => r.result === 'FAIL');
