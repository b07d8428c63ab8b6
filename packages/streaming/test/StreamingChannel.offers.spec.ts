import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { BackpressureStrategy, StreamingChannel } from '@rxagents/streaming';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;
const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('StreamingChannel: a cancelled offer never starts work', () => {
  it('an unsubscribed offer$ never enters the buffer, even when it was parked between live ones', () => {
    const channel = StreamingChannel.create<string>({ bufferSize: 1, backpressure: BackpressureStrategy.BLOCK });
    channel.emit('a');
    const results: [string, boolean][] = [];
    channel.offer$('b').subscribe((accepted) => results.push(['b', accepted]));
    const cancelled = channel.offer$('c').subscribe((accepted) => results.push(['c', accepted]));
    channel.offer$('d').subscribe((accepted) => results.push(['d', accepted]));
    cancelled.unsubscribe();
    expect(channel.metrics()).toMatchObject({ pendingOffers: 2, dropped: 1 });
    const seen: string[] = [];
    channel.subscribe((item) => void seen.push(item));
    expect(seen).toEqual(['a', 'b', 'd']);
    expect(results).toEqual([
      ['b', true],
      ['d', true],
    ]);
  });

  it('an offer$ cancelled by the callback of the offer before it (while the dispatcher drains) never enters the buffer', () => {
    const channel = StreamingChannel.create<string>({ bufferSize: 1, backpressure: BackpressureStrategy.BLOCK });
    channel.emit('a');
    let later: { unsubscribe(): void } | undefined;
    channel.offer$('b').subscribe(() => later?.unsubscribe());
    later = channel.offer$('c').subscribe();
    const seen: string[] = [];
    channel.subscribe((item) => void seen.push(item));
    expect(seen).toEqual(['a', 'b']);
    expect(channel.metrics()).toMatchObject({ emitted: 3, delivered: 2, dropped: 1, pendingOffers: 0 });
  });

  it('an unsubscribed offer$ leaves the parked queue at once: nothing keeps its item', async () => {
    const channel = StreamingChannel.create<object>({ bufferSize: 1, backpressure: BackpressureStrategy.BLOCK, offerTimeout: Infinity });
    channel.emit({ n: 0 });
    channel.offer$({ n: 1 }).subscribe();
    const refs: WeakRef<object>[] = [];
    (() => {
      for (let n = 2; n < 102; n++) {
        const item = { n };
        refs.push(new WeakRef(item));
        channel.offer$(item).subscribe().unsubscribe();
      }
    })();
    await nextMacrotask();
    collectGarbage();
    expect(refs.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
    expect(channel.metrics()).toMatchObject({ pendingOffers: 1, dropped: 100 });
  });
});
