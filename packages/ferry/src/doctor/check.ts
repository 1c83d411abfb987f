// One line of `ferry doctor`'s table: which check, on which backend, its result and why. A FAIL is what would
// break swaps (`ferry start` refuses to start on one); a warn is what limits them (logged at start).
export type CheckLevel = 'ok' | 'warn' | 'FAIL';

export interface CheckResult {
  check: string;
  backend: string;
  result: CheckLevel;
  detail: string;
}

/** The checks of one backend, written as they run: a check that throws is a FAIL with the error's message. */
export class CheckList {
  readonly results: CheckResult[] = [];

  constructor(readonly backend: string) {}

  ok(check: string, detail = ''): void {
    this.results.push({ check, backend: this.backend, result: 'ok', detail });
  }

  warn(check: string, detail: string): void {
    this.results.push({ check, backend: this.backend, result: 'warn', detail });
  }

  fail(check: string, detail: string): void {
    this.results.push({ check, backend: this.backend, result: 'FAIL', detail });
  }

  /** Runs a check; false when it threw (recorded as a FAIL), so dependent checks can be skipped. */
  async run(check: string, body: () => Promise<void>): Promise<boolean> {
    const before = this.results.length;
    try {
      await body();
      return !this.results.slice(before).some((r) => r.result === 'FAIL');
    } catch (error) {
      this.fail(check, errorText(error));
      return false;
    }
  }
}

export const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** "26.0.0" style versions compared part by part (missing parts are 0). */
export function versionAtLeast(version: number[], minimum: number[]): boolean {
  for (let i = 0; i < Math.max(version.length, minimum.length); i++) {
    const a = version[i] ?? 0;
    const b = minimum[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

/** The numbers of a version text such as "0.18.5-beta commit=v0.18.5-beta" or "v24.11.1". */
export const versionParts = (text: string): number[] => (/(\d+(?:\.\d+)*)/.exec(text)?.[1] ?? '').split('.').filter((p) => p !== '').map(Number);
