/**
 * Options shared by every {@link CoordinationError}.
 *
 * @remarks
 * The third argument of the `CoordinationError` constructor; subclasses pass it through `super`.
 *
 * @example
 * ```ts
 * import { CoordinationError, type CoordinationErrorOptions } from '@rxagents/core';
 *
 * class QuotaExceededError extends CoordinationError {
 *   constructor(tenant: string, cause?: unknown) {
 *     const options: CoordinationErrorOptions = { retryable: true, context: { tenant }, cause };
 *     super('QUOTA_EXCEEDED', `Tenant "${tenant}" is over its quota`, options);
 *   }
 * }
 * ```
 */
export interface CoordinationErrorOptions {
  /** Whether trying the same operation again may succeed. Defaults to `false`. */
  readonly retryable?: boolean;
  /** Structured facts about the failure, for logs and programmatic handling. */
  readonly context?: Readonly<Record<string, unknown>>;
  /** The underlying error, if any. */
  readonly cause?: unknown;
}

/**
 * Base class of every expected failure in rxagents.
 *
 * @remarks
 * Each subclass sets a stable {@link CoordinationError.code} (a string constant you can switch on),
 * says whether the operation is {@link CoordinationError.retryable}, and may carry a structured
 * {@link CoordinationError.context}. Catch `CoordinationError` to handle every toolkit failure at once.
 *
 * @example
 * ```ts
 * import { CoordinationError } from '@rxagents/core';
 *
 * function describe(error: unknown): string {
 *   return error instanceof CoordinationError
 *     ? `${error.code}${error.retryable ? ' (retryable)' : ''}: ${error.message}`
 *     : String(error);
 * }
 * ```
 */
export class CoordinationError extends Error {
  /** A stable, machine-readable code such as `AGENT_TIMEOUT`. */
  readonly code: string;
  /** Whether trying the same operation again may succeed. */
  readonly retryable: boolean;
  /** Structured facts about the failure. */
  readonly context: Readonly<Record<string, unknown>> | undefined;

  constructor(code: string, message: string, options: CoordinationErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.context = options.context === undefined ? undefined : Object.freeze({ ...options.context });
  }

  /** Alias of {@link CoordinationError.retryable}, for code ported from PraisonAI. */
  get isRetryable(): boolean {
    return this.retryable;
  }
}
