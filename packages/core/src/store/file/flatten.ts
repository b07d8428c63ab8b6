/**
 * The items of an async iterable of batches, one at a time: an item of a batch already read is handed
 * over at once (one resolved promise, no generator step), so reading a long journal costs little more
 * than parsing it. Ending the iteration early ends the source (closing what it holds open).
 */
export function flatten<T>(source: AsyncIterator<readonly T[]>): AsyncIterableIterator<T> {
  let batch: readonly T[] = [];
  let index = 0;
  const fill = async (): Promise<IteratorResult<T>> => {
    for (;;) {
      const next = await source.next();
      if (next.done === true) return { done: true, value: undefined };
      if (next.value.length > 0) {
        batch = next.value;
        index = 1;
        return { done: false, value: batch[0] as T };
      }
    }
  };
  const iterator: AsyncIterableIterator<T> = {
    next: () => (index < batch.length ? Promise.resolve({ done: false, value: batch[index++] as T }) : fill()),
    return: async () => {
      batch = [];
      await source.return?.(undefined);
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
