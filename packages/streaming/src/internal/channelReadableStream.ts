import type { Subscription } from 'rxjs';
import type { ChannelObserver } from '../ChannelSubscriber';
import { Ack } from './Ack';

type Subscribe<T> = (observer: Partial<ChannelObserver<T>>) => Subscription;

/**
 * A Web `ReadableStream` over a channel: each item is enqueued, and when the stream's queue is full the
 * dispatcher waits for the reader's next `pull`.
 *
 * @internal
 */
export function channelReadableStream<T>(subscribe: Subscribe<T>): ReadableStream<T> {
  let subscription: Subscription | undefined;
  let ack: Ack | undefined;
  return new ReadableStream<T>({
    start(controller) {
      subscription = subscribe({
        next: (value) => {
          controller.enqueue(value);
          if ((controller.desiredSize ?? 0) > 0) return undefined;
          ack = new Ack();
          return ack;
        },
        error: (error) => controller.error(error),
        complete: () => controller.close(),
      });
    },
    pull() {
      const gate = ack;
      ack = undefined;
      gate?.release();
    },
    cancel() {
      subscription?.unsubscribe();
    },
  });
}
