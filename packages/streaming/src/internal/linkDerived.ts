import { BackpressureStrategy } from '../BackpressureStrategy';
import { type ChannelDispatcher, hasReaders } from './ChannelDispatcher';
import { addEndHandler } from './ChannelListeners';
import { subscribeLane } from './createDispatcher';
import type { DerivationRelay } from './DerivationRelay';
import { derivationFeed, type DerivedChannel } from './derivationFeed';

/**
 * Feeds a derived channel (`map`, `filter`) from its parent: a pacing subscriber on the parent that
 * counts as a reader only while the derived channel has one (see `onLastUnsubscribe`), passing items,
 * the parent's error and its end through the shared `relay`; the link ends when the derived channel does.
 *
 * @internal
 */
export function linkDerived<T, R>(relay: DerivationRelay, parent: ChannelDispatcher<T>, childDispatcher: ChannelDispatcher<R>, child: DerivedChannel<T>): void {
  const link = subscribeLane(parent, derivationFeed(relay, parent, child), undefined, BackpressureStrategy.BLOCK, undefined, () => hasReaders(childDispatcher));
  addEndHandler(childDispatcher.listeners, () => link.unsubscribe());
}
