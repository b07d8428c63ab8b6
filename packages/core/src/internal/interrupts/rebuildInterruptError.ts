import { CoordinationError } from '../../errors/CoordinationError';
import type { SerializedError } from '../../events/SerializedError';

/** The failure of a replayed interrupt, rebuilt from its record: a `CoordinationError` with the recorded name, code, message and `retryable`. */
export function rebuildInterruptError(recorded: SerializedError): Error {
  const error = new CoordinationError(recorded.code ?? 'INTERRUPT_FAILED', recorded.message, recorded.retryable === undefined ? {} : { retryable: recorded.retryable });
  Object.defineProperty(error, 'name', { value: recorded.name, writable: true, configurable: true, enumerable: false });
  return error;
}
