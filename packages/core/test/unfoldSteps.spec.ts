import { from, of, Subject, throwError } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { ConfigError, fromAbortSignal, unfoldSteps, type Unfolded } from '@rxagents/core';

describe('unfoldSteps', () => {
  it('runs 100,000 synchronous steps in constant stack, emitting in order', () => {
    const seen: number[] = [];
    let completed = false;
    unfoldSteps<number, number>(0, (n) => (n === 100_000 ? of<Unfolded<number, number>>({ emit: n }) : from<Unfolded<number, number>[]>([{ emit: n }, { next: n + 1 }]))).subscribe({
      next: (n) => seen.push(n),
      complete: () => (completed = true),
    });
    expect([seen.length, seen[0], seen.at(-1), completed]).toEqual([100_001, 0, 100_000, true]);
  });

  it('waits for asynchronous steps on virtual time', () => {
    new TestScheduler((a, b) => expect(a).toEqual(b)).run(({ cold, expectObservable }) => {
      const step = (n: number) => cold<Unfolded<number, string>>('-a|', { a: n < 2 ? { next: n + 1 } : { emit: `done at ${n}` } });
      expectObservable(unfoldSteps(0, step)).toBe('-----d|', { d: 'done at 2' });
    });
  });

  it('fails with an error a step throws or emits', () => {
    const errors: unknown[] = [];
    unfoldSteps<number, never>(0, () => { throw new Error('bad route'); }).subscribe({ error: (error) => errors.push(error) });
    unfoldSteps<number, never>(0, () => throwError(() => new Error('bad step'))).subscribe({ error: (error) => errors.push(error) });
    expect(errors.map((error) => (error as Error).message)).toEqual(['bad route', 'bad step']);
  });

  it('unsubscribing stops the running step', () => {
    const step$ = new Subject<Unfolded<number, number>>();
    const subscription = unfoldSteps<number, number>(0, () => step$).subscribe();
    expect(step$.observed).toBe(true);
    subscription.unsubscribe();
    expect(step$.observed).toBe(false);
  });

  it.each([null, undefined, 42, {}])('refuses %p as the step with a ConfigError naming step', (bad) => {
    expect(() => unfoldSteps(0, bad as never)).toThrow(ConfigError);
    expect(() => unfoldSteps(0, bad as never)).toThrow(/^unfoldSteps: step must be a function/);
  });
});

describe('fromAbortSignal', () => {
  it('emits the reason once and completes, at once when already aborted', () => {
    const controller = new AbortController();
    const seen: unknown[] = [];
    fromAbortSignal(controller.signal).subscribe({ next: (reason) => seen.push(reason), complete: () => seen.push('complete') });
    expect(seen).toEqual([]);
    controller.abort('stop');
    fromAbortSignal(controller.signal).subscribe({ next: (reason) => seen.push(`late ${String(reason)}`), complete: () => seen.push('late complete') });
    expect(seen).toEqual(['stop', 'complete', 'late stop', 'late complete']);
  });

  it('removes its listener on unsubscription', () => {
    const controller = new AbortController();
    const removed = jest.spyOn(controller.signal, 'removeEventListener');
    const seen: unknown[] = [];
    fromAbortSignal(controller.signal).subscribe((reason) => seen.push(reason)).unsubscribe();
    controller.abort('stop');
    expect([seen, removed.mock.calls.length]).toEqual([[], 1]);
  });

  it.each([null, undefined, 42, {}])('refuses %p as the signal with a ConfigError naming signal', (bad) => {
    expect(() => fromAbortSignal(bad as never)).toThrow(ConfigError);
    expect(() => fromAbortSignal(bad as never)).toThrow(/^fromAbortSignal: signal must be an AbortSignal/);
  });
});
