import { defer, NEVER, Observable, of, Subject } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { oneAfterAnother } from '../src/execution/oneAfterAnother';

describe('oneAfterAnother', () => {
  it('starts each call once the previous one completed and emits the projected values in order', () => {
    new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(({ cold, expectObservable, expectSubscriptions }) => {
      const calls = [cold('--a|'), cold('-b|'), cold('c|')];
      const result$ = oneAfterAnother(3, (index) => calls[index] as Observable<string>, (value) => value.toUpperCase(), () => false);
      expectObservable(result$).toBe('--a-bc|', { a: 'A', b: 'B', c: 'C' });
      expectSubscriptions(calls[0]!.subscriptions).toBe('^--!');
      expectSubscriptions(calls[1]!.subscriptions).toBe('---^-!');
      expectSubscriptions(calls[2]!.subscriptions).toBe('-----^!');
    });
  });

  it('ends right after the value stopAfter accepts: that call is unsubscribed, later calls never start', () => {
    const started: number[] = [];
    const values: string[] = [];
    let completed = false;
    let stoppedCallClosed = false;
    const call = (index: number) =>
      new Observable<string>((subscriber) => {
        started.push(index);
        subscriber.next(index === 1 ? 'stop' : 'go');
        if (index !== 1) subscriber.complete();
        return () => {
          if (index === 1) stoppedCallClosed = true;
        };
      });
    oneAfterAnother(4, call, (value) => value, (value) => value === 'stop').subscribe({ next: (value) => values.push(value), complete: () => (completed = true) });
    expect(started).toEqual([0, 1]);
    expect(values).toEqual(['go', 'stop']);
    expect(completed).toBe(true);
    expect(stoppedCallClosed).toBe(true);
  });

  it('unsubscribing stops the call in flight and starts no other', () => {
    const started: number[] = [];
    let unsubscribed = false;
    const call = (index: number) =>
      defer(() => {
        started.push(index);
        return new Observable<never>(() => () => (unsubscribed = true));
      });
    const subscription = oneAfterAnother(3, call, (value) => value, () => false).subscribe();
    subscription.unsubscribe();
    expect(started).toEqual([0]);
    expect(unsubscribed).toBe(true);
  });

  it('passes on an error and starts no later call', () => {
    const failure = new Subject<string>();
    const started: number[] = [];
    let error: unknown;
    const calls = [failure, NEVER];
    oneAfterAnother(2, (index) => (started.push(index), calls[index] as Observable<string>), (value) => value, () => false).subscribe({ error: (e: unknown) => (error = e) });
    failure.error(new Error('boom'));
    expect(error).toEqual(new Error('boom'));
    expect(started).toEqual([0]);
  });

  it('runs 100,000 synchronous calls in constant stack', () => {
    let count = 0;
    oneAfterAnother(100_000, (index) => of(index), (value) => value, () => false).subscribe(() => (count += 1));
    expect(count).toBe(100_000);
  });
});
