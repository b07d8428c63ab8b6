import { CoordinationError, type SerializedError } from '@rxagents/core';

/**
 * A Redis channel's producer ended it with `error(err)`: the error as its consumers receive it, in any process.
 *
 * @remarks
 * The original error cannot cross processes, so its name, message, code and retryable flag arrive as
 * {@link SerializedError} in `remote`; `retryable` is the remote error's. A consumer receives it after
 * the items stored before the error (its observer's `error`, a `for await` loop's throw).
 *
 * @example
 * ```ts
 * import { RemoteChannelError } from '@rxagents/redis';
 *
 * const error = new RemoteChannelError('answers', { name: 'Error', message: 'model unavailable' });
 * console.log(error.code, error.remote.message); // REMOTE_CHANNEL_ERROR model unavailable
 * ```
 */
export class RemoteChannelError extends CoordinationError {
  /** The channel's id. */
  readonly channelId: string;
  /** The error the producer gave to `error()`, as it was written to the stream. */
  readonly remote: SerializedError;

  constructor(channelId: string, remote: SerializedError) {
    super('REMOTE_CHANNEL_ERROR', `Channel "${channelId}" failed: ${remote.message}`, {
      retryable: remote.retryable ?? false,
      context: { channelId, remote },
    });
    this.channelId = channelId;
    this.remote = remote;
  }
}
