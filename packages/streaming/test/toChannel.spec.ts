import { TestScheduler } from 'rxjs/testing';
import { lastValueFrom, map, Observable, take, timer, toArray } from 'rxjs';
import { stream } from '@rxagents/core';
import { scriptedAgent } from '@rxagents/testing';
import { BackpressureStrategy, ChannelClosedError, StreamingChannel, toChannel } from '@rxagents/streaming';

const testScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('toChannel', () => {
  it('pipes an agent token stream into a channel and completes it', async () => {
    const writer = scriptedAgent('writer', { chunks: ['Once ', 'upon ', 'a time'] });
    const channel = StreamingChannel.create<string>({ backpressure: BackpressureStrategy.BLOCK });
    const tokens: string[] = [];
    const done = new Promise<void>((resolve) => channel.onComplete(resolve));
    channel.subscribe((token) => void tokens.push(token));
    await expect(lastValueFrom(stream(writer, 'story').pipe(toChannel(channel, { complete: true }), toArray()))).resolves.toEqual([true, true, true]);
    await done;
    expect(tokens.join('')).toBe('Once upon a time');
  });

  it('honours BLOCK: values wait for space within offerTimeout and the late ones are dropped (virtual time)', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const channel = StreamingChannel.create<string>({ bufferSize: 1, backpressure: BackpressureStrategy.BLOCK, offerTimeout: 25, maxPendingOffers: 2 });
      const handled: string[] = [];
      channel.subscribe((token) => timer(10).pipe(map(() => handled.push(token))));
      const tokens = cold('abcde|');
      expectObservable(tokens.pipe(toChannel(channel))).toBe('t t 2ms f 5ms t 9ms (t|)', { t: true, f: false });
    });
  });

  it('stops a synchronous source as soon as downstream unsubscribes', () => {
    let pulled = 0;
    const endless = new Observable<string>((subscriber) => {
      for (let i = 0; i < 100_000 && !subscriber.closed; i++) {
        pulled += 1;
        subscriber.next(`token ${i}`);
      }
      subscriber.complete();
    });
    const channel = StreamingChannel.create<string>();
    const received: string[] = [];
    channel.subscribe((token) => void received.push(token));
    endless.pipe(toChannel(channel), take(2)).subscribe();
    expect(pulled).toBe(2);
    expect(received).toEqual(['token 0', 'token 1']);
  });

  it('fails when the channel is closed, and passes source errors through', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const closed = StreamingChannel.create<string>({ id: 'gone' });
      closed.close();
      expectObservable(cold('a|').pipe(toChannel(closed))).toBe('#', undefined, new ChannelClosedError('gone', 'closed'));
      expectObservable(cold('-#', undefined, 'boom').pipe(toChannel(StreamingChannel.create<string>()))).toBe('-#', undefined, 'boom');
    });
  });

  it('with { complete: true } forwards the source error into the channel, after the accepted items', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const failure = new Error('agent failed');
      const channel = StreamingChannel.create<string>();
      const readers = StreamingChannel.create<string>();
      expectObservable(cold('a-b-#', undefined, failure).pipe(toChannel(channel, { complete: true }))).toBe('t-t-#', { t: true }, failure);
      expectObservable(channel.asObservable()).toBe('a-b-#', undefined, failure);
      cold('a-#', undefined, failure).pipe(toChannel(readers)).subscribe({ error: () => undefined });
      expectObservable(readers.asObservable()).toBe('a---');
    });
  });
});
