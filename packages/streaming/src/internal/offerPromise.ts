import type { ChannelDispatcher } from './ChannelDispatcher';
import { offerItem } from './createDispatcher';

const ACCEPTED = Promise.resolve(true);
const REFUSED = Promise.resolve(false);

/**
 * What `StreamingChannel.offer` returns: a settled Promise when the dispatcher answers at once (one shared
 * Promise per answer, so a hot `offer` loop allocates none), else one that the parked entry settles
 * (`true` in the buffer, `false` dropped) or refuses (`error()`). `validate` is the channel's schema
 * check; what it or `offerItem` throws becomes a rejection: a Promise API never throws.
 *
 * @internal
 */
export function offerPromise<T>(dispatcher: ChannelDispatcher<T>, item: T, validate: ((item: T) => T) | undefined): Promise<boolean> {
  let result;
  try {
    result = offerItem(dispatcher, validate === undefined ? item : validate(item), undefined);
  } catch (error) {
    return Promise.reject(error);
  }
  if (result === true) return ACCEPTED;
  if (result === false) return REFUSED;
  const entry = result;
  return new Promise<boolean>((resolve, reject) => {
    entry.settle = resolve;
    entry.refuse = reject;
  });
}
