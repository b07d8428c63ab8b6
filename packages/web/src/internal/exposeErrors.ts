import { serializeError, type SerializedError } from '@rxagents/core';
import { redactError, type ExposeError } from '../redactError';

/**
 * What a browser receives of `error` (anything thrown, or an event's `SerializedError`): `expose`'s
 * answer, its four fields only; the redacted error when `expose` throws or answers something else.
 */
export function exposedError(error: unknown, expose: ExposeError = redactError): SerializedError {
  const serialized = error instanceof Error || !isSerialized(error) ? serializeError(error) : pick(error);
  try {
    const shown: unknown = expose(serialized);
    if (isSerialized(shown)) return pick(shown);
  } catch {
    // The server's own function failed: what goes out is still safe.
  }
  return redactError(serialized);
}

/** The run event types that carry an `error` field. */
const WITH_ERROR: ReadonlySet<unknown> = new Set(['call-error', 'run-end', 'step', 'interrupt-end']);

/**
 * `value` with its `error` field exposed when it is a run event that carries one (`call-error`, a failed
 * `run-end` or `step`, an unanswered `interrupt-end`), else `value` itself: every other value costs two property reads.
 */
export function withExposedError<T>(value: T, expose: ExposeError = redactError): T {
  if (typeof value !== 'object' || value === null) return value;
  const { error, type } = value as { error?: unknown; type?: unknown };
  if (error === undefined || !WITH_ERROR.has(type)) return value;
  return { ...value, error: exposedError(error, expose) };
}

function isSerialized(value: unknown): value is SerializedError {
  return typeof value === 'object' && value !== null && typeof (value as SerializedError).name === 'string' && typeof (value as SerializedError).message === 'string';
}

function pick(error: SerializedError): SerializedError {
  const picked: { name: string; message: string; code?: string; retryable?: boolean } = { name: error.name, message: error.message };
  if (typeof error.code === 'string') picked.code = error.code;
  if (typeof error.retryable === 'boolean') picked.retryable = error.retryable;
  return picked;
}
