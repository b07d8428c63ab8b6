import { EmptyError, EMPTY, NEVER, Observable, of, throwError } from 'rxjs';
import { getEventListeners } from 'node:events';
import { ConfigError, lastValue } from '@rxagents/core';

describe('lastValue', () => {
  it('resolves with the last value', async () => {
    await expect(lastValue(of(1, 2, 3))).resolves.toBe(3);
  });

  it('rejects with the error', async () => {
    await expect(lastValue(throwError(() => new Error('nope')))).rejects.toThrow('nope');
  });

  it('rejects an empty Observable with EmptyError', async () => {
    await expect(lastValue(EMPTY)).rejects.toBeInstanceOf(EmptyError);
  });

  it('unsubscribes and rejects with the reason when the signal aborts', async () => {
    let tornDown = false;
    const source = new Observable<number>(() => () => (tornDown = true));
    const controller = new AbortController();
    const pending = lastValue(source, { signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
    expect(tornDown).toBe(true);
  });

  it('rejects a signal that is not an AbortSignal with a ConfigError, without subscribing', async () => {
    let subscribed = false;
    const source = new Observable<number>(() => {
      subscribed = true;
    });
    await expect(lastValue(source, { signal: 'stop' as never })).rejects.toThrow(ConfigError);
    await expect(lastValue(source, { signal: null as never })).rejects.toThrow('lastValue options: signal must be an AbortSignal, got null');
    expect(subscribed).toBe(false);
  });

  it('rejects at once, without subscribing, when the signal is already aborted', async () => {
    let subscribed = false;
    const source = new Observable<number>(() => {
      subscribed = true;
    });
    await expect(lastValue(source, { signal: AbortSignal.abort(new Error('already')) })).rejects.toThrow('already');
    expect(subscribed).toBe(false);
  });

  it('does not keep a listener on the signal after settling', async () => {
    const controller = new AbortController();
    await lastValue(of(1), { signal: controller.signal });
    const later = new Observable<number>((subscriber) => {
      setImmediate(() => {
        subscriber.next(2);
        subscriber.complete();
      });
    });
    const pending = lastValue(later, { signal: controller.signal });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    await expect(pending).resolves.toBe(2);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    await expect(lastValue(NEVER.pipe(), { signal: AbortSignal.abort('x') })).rejects.toBe('x');
  });

  it('rejects when the signal aborts while the source is being subscribed', async () => {
    const controller = new AbortController();
    let tornDown = false;
    const source = new Observable<number>(() => {
      controller.abort(new Error('aborted during subscribe'));
      return () => (tornDown = true);
    });

    const outcome = await Promise.race([
      lastValue(source, { signal: controller.signal }).catch((e: unknown) => e),
      new Promise((resolve) => setImmediate(() => resolve('still pending'))),
    ]);

    expect(outcome).toEqual(new Error('aborted during subscribe'));
    expect(tornDown).toBe(true);
  });

  it.each([null, undefined, 42, {}])('rejects (never throws) for %p as the source, with a ConfigError naming source', async (bad) => {
    const pending = lastValue(bad as never);
    await expect(pending).rejects.toThrow(ConfigError);
    await expect(pending).rejects.toThrow(/^lastValue: source must be an Observable/);
  });
});
