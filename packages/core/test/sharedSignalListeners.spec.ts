import { getEventListeners } from 'node:events';
import { NEVER, Subject } from 'rxjs';
import { fromAbortSignal, lastValue } from '../src';

describe('one abort listener per signal, however many wait on it', () => {
  it('100 lastValue calls sharing a signal add one listener, and an abort rejects every one', async () => {
    const controller = new AbortController();
    const calls = Array.from({ length: 100 }, () => lastValue(NEVER, { signal: controller.signal }));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort(new Error('user left'));
    const settled = await Promise.allSettled(calls);
    expect(settled.map((s) => (s.status === 'rejected' ? (s.reason as Error).message : 'resolved'))).toEqual(Array(100).fill('user left'));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('the listener leaves the signal with its last waiter', async () => {
    const controller = new AbortController();
    const sources = Array.from({ length: 20 }, () => new Subject<number>());
    const calls = sources.map((source) => lastValue(source, { signal: controller.signal }));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    sources.slice(0, 19).forEach((source, i) => {
      source.next(i);
      source.complete();
    });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    sources[19]!.next(19);
    sources[19]!.complete();
    expect(await Promise.all(calls)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('fromAbortSignal subscriptions share the listener and are told in subscription order', () => {
    const controller = new AbortController();
    const heard: number[] = [];
    const subscriptions = Array.from({ length: 50 }, (_, i) => fromAbortSignal(controller.signal).subscribe(() => heard.push(i)));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    subscriptions[0]!.unsubscribe();
    controller.abort();
    expect(heard).toEqual(Array.from({ length: 49 }, (_, i) => i + 1));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('a signal waited on again after every waiter left gets its listener back', () => {
    const controller = new AbortController();
    fromAbortSignal(controller.signal).subscribe().unsubscribe();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    const heard: unknown[] = [];
    fromAbortSignal(controller.signal).subscribe((reason) => heard.push(reason));
    controller.abort('done');
    expect(heard).toEqual(['done']);
  });
});
