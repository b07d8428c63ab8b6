import { CoordinationError } from '@rxagents/core';

/**
 * A bounded buffer was full and its strategy is `ERROR` (or BLOCK's parked offers hit their strict cap).
 *
 * @remarks
 * Thrown by {@link StreamingChannel.emit} under `BackpressureStrategy.ERROR`, delivered downstream by the
 * {@link backpressure} operator, and sent to a subscriber whose own buffer uses `ERROR`. Retryable: the
 * buffer may have room a moment later. `context` carries `channelId` and `capacity`.
 *
 * @example
 * ```ts
 * import { BackpressureStrategy, BufferOverflowError, StreamingChannel } from '@rxagents/streaming';
 *
 * const channel = StreamingChannel.create<number>({ id: 'strict', bufferSize: 1, backpressure: BackpressureStrategy.ERROR });
 * channel.emit(1);
 * try {
 *   channel.emit(2);
 * } catch (error) {
 *   if (error instanceof BufferOverflowError) console.log(error.code, error.capacity); // BUFFER_OVERFLOW 1
 * }
 * ```
 */
export class BufferOverflowError extends CoordinationError {
  /** The id of the channel (or `backpressure` for the operator) whose buffer overflowed. */
  readonly channelId: string;
  /** The capacity that was exceeded. */
  readonly capacity: number;

  constructor(channelId: string, capacity: number, what = 'buffer') {
    super('BUFFER_OVERFLOW', `Channel "${channelId}": ${what} is full (capacity ${capacity})`, {
      retryable: true,
      context: { channelId, capacity },
    });
    this.channelId = channelId;
    this.capacity = capacity;
  }
}
