import * as z from 'zod';
import { CoordinationError } from '../errors/CoordinationError';
import { preview } from '../preview';

/**
 * An error as it travels in a run event: plain data, so it survives `JSON.stringify` and a wire.
 *
 * @remarks
 * `name` and `message` always; `code` and `retryable` when the error has them (every
 * `CoordinationError` does, an `AgentError` included). The stack and the cause are left out on purpose:
 * they belong in the process's logs, not in a stream a browser reads.
 *
 * @example
 * ```ts
 * import { serializeError, type SerializedError } from '@rxagents/core';
 *
 * const wire: SerializedError = serializeError(new Error('model overloaded'));
 * console.log(JSON.stringify(wire)); // {"name":"Error","message":"model overloaded"}
 * ```
 */
export interface SerializedError {
  /** The error's class name, for example `AgentTimeoutError`. */
  readonly name: string;
  /** The error's message. */
  readonly message: string;
  /** A stable machine-readable code such as `AGENT_TIMEOUT`, when the error has one. */
  readonly code?: string;
  /** Whether trying again may succeed, when the error says. */
  readonly retryable?: boolean;
}

/**
 * The zod schema of a {@link SerializedError}, for input read from a wire.
 *
 * @example
 * ```ts
 * import { SerializedErrorSchema } from '@rxagents/core';
 *
 * console.log(SerializedErrorSchema.safeParse({ name: 'Error', message: 'boom' }).success); // true
 * ```
 */
export const SerializedErrorSchema = z.strictObject({
  name: z.string(),
  message: z.string(),
  code: z.string().optional(),
  retryable: z.boolean().optional(),
});

/**
 * Turns anything thrown into a {@link SerializedError}.
 *
 * @remarks
 * An `Error` gives its `name` and `message`, plus `code` and `retryable` when they are a string and a
 * boolean (a {@link CoordinationError} always has both); anything else becomes `{ name: 'Error',
 * message: String(value) }`. It never throws and always gives strings: a value that `String()` cannot
 * convert (an object without a prototype) is described as `preview` does, an `Error` whose `name` or
 * `message` is not a string gets `Error` or its conversion, and an error whose properties throw when read
 * (a getter, a revoked `Proxy`) becomes `{ name: 'Error', message }` with what can still be said of it.
 *
 * @param error - What was thrown or errored with.
 * @returns Plain, JSON-safe data.
 *
 * @example
 * ```ts
 * import { AgentTimeoutError, serializeError } from '@rxagents/core';
 *
 * console.log(serializeError(new AgentTimeoutError('writer', 5_000)).code); // AGENT_TIMEOUT
 * ```
 */
export function serializeError(error: unknown): SerializedError {
  try {
    return serialize(error);
  } catch {
    // A getter of the error that throws, a revoked Proxy: still a run-end, with what can be said.
    return { name: 'Error', message: text(error) };
  }
}

function serialize(error: unknown): SerializedError {
  if (error instanceof CoordinationError) return { name: error.name, message: error.message, code: error.code, retryable: error.retryable };
  if (!(error instanceof Error)) return { name: 'Error', message: text(error) };
  const { name, message, code, retryable } = error as { name: unknown; message: unknown; code?: unknown; retryable?: unknown };
  const serialized: { name: string; message: string; code?: string; retryable?: boolean } = {
    name: typeof name === 'string' ? name : 'Error',
    message: typeof message === 'string' ? message : text(message),
  };
  if (typeof code === 'string') serialized.code = code;
  if (typeof retryable === 'boolean') serialized.retryable = retryable;
  return serialized;
}

// A run's end is reported with this: a conversion that throws would lose the run-end event and the error.
function text(value: unknown): string {
  try {
    return String(value);
  } catch {
    try {
      return preview(value);
    } catch {
      return 'an error that cannot be described';
    }
  }
}
