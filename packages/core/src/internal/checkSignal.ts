import { isAbortSignal } from '../configRules';
import { ConfigError } from '../errors/ConfigError';

/**
 * Refuses a `signal` option that is not an `AbortSignal` (what `configRules.abortSignal` accepts) with a
 * {@link ConfigError}, before any work starts: otherwise the work would start and the signal's first use
 * would throw a bare `TypeError`, leaving the work running with nobody to cancel it.
 */
export function checkSignal(signal: unknown, subject: string): void {
  if (signal === undefined || isAbortSignal(signal)) return;
  throw new ConfigError(subject, [{ path: 'signal', rule: 'must be an AbortSignal', received: signal }]);
}
