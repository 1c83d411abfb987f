// v1 knows fewer status codes than v2: every refusal is a 400 except an unknown swap in /swapstatus (404) and
// unauthenticated referral calls (401). Engine refusals keep their text and extra fields; only the code changes.
import { SwapError } from '@ferry/sdk/protocol/index.js';
import { HttpError, httpStatusOf } from '../http/errors.ts';

const asV1Status = (status: number): number => (status === 404 || status === 409 ? 400 : status);

/** Runs a v1 call; a refusal from the engine or the shared validation is answered with v1's status code. */
export async function v1Call<T>(call: () => T | Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof SwapError || error instanceof HttpError) {
      const status = error instanceof SwapError ? httpStatusOf(error) : error.status;
      throw new HttpError(asV1Status(status), error.message, error.extra);
    }
    throw error;
  }
}

/** The engine does not offer the v1 pair data (an engine without it, e.g. a test double). */
export const v1Unsupported = () => new HttpError(501, 'the swap engine does not serve API v1 pair data');
