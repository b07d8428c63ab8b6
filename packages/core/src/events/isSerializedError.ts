import type { SerializedError } from './SerializedError';

const FIELDS = new Set(['name', 'message', 'code', 'retryable']);

/**
 * Whether `value` is a {@link SerializedError}: the same rules as `SerializedErrorSchema`, without zod.
 *
 * @remarks
 * A plain object with a string `name` and `message`, an optional string `code` and boolean
 * `retryable`, and no other field. It weighs a few bytes in a browser bundle where the zod schema
 * would bring zod; the two are tested against each other on random values so they cannot drift.
 *
 * @example
 * ```ts
 * import { isSerializedError } from '@rxagents/core';
 *
 * console.log(isSerializedError({ name: 'Error', message: 'boom' })); // true
 * console.log(isSerializedError({ name: 'Error', message: 'boom', stack: '...' })); // false
 * ```
 */
export function isSerializedError(value: unknown): value is SerializedError {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const error = value as Record<string, unknown>;
  for (const key of Object.keys(error)) if (!FIELDS.has(key)) return false;
  return (
    typeof error.name === 'string' &&
    typeof error.message === 'string' &&
    (error.code === undefined || typeof error.code === 'string') &&
    (error.retryable === undefined || typeof error.retryable === 'boolean')
  );
}
