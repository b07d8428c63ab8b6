import { ConfigError, type SerializedError } from '@rxagents/core';

/**
 * What of an error a browser receives: a function from the error as the server has it (a
 * `SerializedError`: `name`, `message`, `code?`, `retryable?`) to what is sent. The `exposeError` option
 * of every function of this package that writes to a browser.
 *
 * @remarks
 * The default, {@link redactError}, keeps the name, code and retryability and replaces the message with a
 * generic one. Pass `(error) => error` to send everything (a trusted, internal page), or your own
 * function to keep the messages you wrote for users. What it returns is sent as its `name`, `message`,
 * `code` and `retryable` fields only; a function that throws, or returns something without a string
 * `name` and `message`, sends the redacted error instead.
 *
 * @example
 * ```ts
 * import { redactError, toEventStream, type ExposeError } from '@rxagents/web';
 * import { EMPTY } from 'rxjs';
 *
 * // Our own QUOTA_EXCEEDED messages are written for users; everything else is redacted.
 * const exposeError: ExposeError = (error) => (error.code === 'QUOTA_EXCEEDED' ? error : redactError(error));
 * const body = toEventStream(EMPTY, { exposeError });
 * console.log(body instanceof ReadableStream); // true
 * await body.cancel(); // a body nobody reads is cancelled (else it is cut off after stallTimeoutMs)
 * ```
 */
export type ExposeError = (error: SerializedError) => SerializedError;

/**
 * Codes whose messages the toolkit builds for the viewer from nothing but what the viewer itself sent (event
 * ids) or fixed text: they name no host, path or secret, and they tell the viewer what to do.
 */
const VIEWER_MESSAGE_CODES: ReadonlySet<string> = new Set(['REPLAY_GAP', 'RUN_CUT_OFF', 'VIEWER_STALLED', 'RUN_FORGOTTEN']);

/** A class name (`AgentTimeoutError`, `TypeError`): anything else is sent as `Error`. */
const NAME = /^[A-Za-z_$][\w$]{0,99}$/;
/** A code (`AGENT_TIMEOUT`, `ECONNREFUSED`, `ERR_INVALID_URL`): anything else is not sent. */
const CODE = /^[\w.:-]{1,100}$/;

/**
 * The error a browser receives by default: its name, code and retryability, and a generic message.
 *
 * @remarks
 * An error's message can name hosts, paths, queries or a model's prompt: it belongs in the server's logs,
 * not in a page. So the message becomes `The operation was cancelled` for an `AbortError` and `An error
 * occurred on the server` otherwise; a page tells errors apart by `code` (and `name`). The messages of the
 * few codes this package writes for the viewer from what it sent itself or from fixed text (`REPLAY_GAP`:
 * which event ids are no longer kept; `RUN_CUT_OFF`: a run's events stopped with nodes open; `VIEWER_STALLED`, `RUN_FORGOTTEN`) are kept. A `name` that is not a class name is sent as `Error`, a `code` that is not a
 * plain code (letters, digits, `_`, `.`, `:`, `-`, at most 100) is left out.
 *
 * @param error - The error as the server has it.
 * @returns What a browser may see of it.
 *
 * @example
 * ```ts
 * import { redactError } from '@rxagents/web';
 *
 * const sent = redactError({ name: 'Error', message: 'connect ECONNREFUSED 10.0.4.2:6379', code: 'ECONNREFUSED' });
 * console.log(sent); // { name: 'Error', message: 'An error occurred on the server', code: 'ECONNREFUSED' }
 * ```
 */
export function redactError(error: SerializedError): SerializedError {
  if (typeof error !== 'object' || error === null) throw new ConfigError('redactError', [{ path: 'error', rule: 'must be a serialized error (an object with name and message)', received: error }]);
  const name = typeof error.name === 'string' && NAME.test(error.name) ? error.name : 'Error';
  const code = typeof error.code === 'string' && CODE.test(error.code) ? error.code : undefined;
  const message =
    code !== undefined && VIEWER_MESSAGE_CODES.has(code) && typeof error.message === 'string'
      ? error.message
      : name === 'AbortError'
        ? 'The operation was cancelled'
        : 'An error occurred on the server';
  const redacted: { name: string; message: string; code?: string; retryable?: boolean } = { name, message };
  if (code !== undefined) redacted.code = code;
  if (typeof error.retryable === 'boolean') redacted.retryable = error.retryable;
  return redacted;
}
