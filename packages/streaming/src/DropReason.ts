/**
 * Why the `backpressure` operator dropped a value, as passed to its `onDrop` callback.
 *
 * @remarks
 * - `DROP_OLDEST`: it was the oldest buffered item and a newer one needed its place.
 * - `DROP_NEWEST`: it arrived at a full buffer under `DROP_NEWEST`.
 * - `OFFER_TIMEOUT`: it was parked under `BLOCK` and `offerTimeout` passed before space freed up.
 * - `PENDING_OFFERS_FULL`: it arrived under `BLOCK` when `maxPendingOffers` items were already parked.
 * - `OVERFLOW`: it arrived at a full buffer under `ERROR`.
 *
 * Values still waiting when the operator's subscription ends (unsubscription, or an error) are discarded
 * with it, not reported: that is cancellation, not a strategy at work.
 *
 * @example
 * ```ts
 * import type { DropReason } from '@rxagents/streaming';
 *
 * const tally = new Map<DropReason, number>();
 * const onDrop = (_item: unknown, reason: DropReason) => tally.set(reason, (tally.get(reason) ?? 0) + 1);
 * onDrop('late token', 'OFFER_TIMEOUT');
 * console.log(tally.get('OFFER_TIMEOUT')); // 1
 * ```
 */
export type DropReason = 'DROP_OLDEST' | 'DROP_NEWEST' | 'OFFER_TIMEOUT' | 'PENDING_OFFERS_FULL' | 'OVERFLOW';
