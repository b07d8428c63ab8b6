import type { ChannelObserver } from '../ChannelSubscriber';
import { type ChannelDispatcher, ChannelState } from './ChannelDispatcher';
import { reportError } from './ChannelListeners';
import type { DerivationRelay } from './DerivationRelay';

/** What a parent channel does to the channel derived from it (`map`, `filter`). @internal */
export interface DerivedChannel<T> {
  /** Hands one parent item on; a Promise while a `BLOCK` offer is parked. */
  feed(item: T): Promise<boolean> | undefined;
  error(failure: unknown): void;
  close(): void;
  complete(): void;
}

/**
 * The subscriber a derived channel holds on its parent: items, the parent's error and its end pass through
 * the shared `relay` (constant stack at any depth); what the derived side throws goes to the parent's
 * `onError` handlers. A parent that closed closes the child, one that completed completes it.
 *
 * @internal
 */
export function derivationFeed<T>(relay: DerivationRelay, parent: ChannelDispatcher<T>, child: DerivedChannel<T>): Partial<ChannelObserver<T>> {
  return {
    next: (item) => relay.next(() => child.feed(item), (error) => reportError(parent.listeners, error, item)),
    error: (failure) =>
      relay.end(
        () => child.error(failure),
        (error) => reportError(parent.listeners, error, undefined),
      ),
    complete: () =>
      relay.end(
        () => (parent.state === ChannelState.Closed ? child.close() : child.complete()),
        (error) => reportError(parent.listeners, error, undefined),
      ),
  };
}
