import { TestScheduler } from 'rxjs/testing';
import { map, NEVER, Observable, of, Subject, take, throwError, timer } from 'rxjs';
import { ConfigError } from '@rxagents/core';
import { backpressure, BackpressureStrategy, BufferOverflowError, type DropReason } from '@rxagents/streaming';

/** A synchronous source of 100,000 numbers that stops when its subscriber closes, counting what it emitted. */
function countingSource(): { source: Observable<number>; pulled: () => number } {
  let pulled = 0;
  const source = new Observable<number>((subscriber) => {
    for (let i = 0; i < 100_000 && !subscriber.closed; i++) {
      pulled += 1;
      subscriber.next(i);
    }
    subscriber.complete();
  });
  return { source, pulled: () => pulled };
}

const testScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const slow = (frames: number) => (value: string) => timer(frames).pipe(map(() => value));

describe('backpressure', () => {
  it('runs one project at a time by default and drains the buffer on completion', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold('abc|');
      expectObservable(source.pipe(backpressure(slow(5)))).toBe('5ms a 4ms b 4ms (c|)');
    });
  });

  it('DROP_OLDEST reports each dropped value to onDrop', () => {
    const drops: [string, DropReason][] = [];
    testScheduler().run(({ cold, expectObservable, flush }) => {
      expectObservable(
        cold('abcde|').pipe(backpressure(slow(10), { bufferSize: 2, onDrop: (v, r) => drops.push([v, r]) })),
      ).toBe('10ms a 9ms d 9ms (e|)');
      flush();
    });
    expect(drops).toEqual([
      ['b', 'DROP_OLDEST'],
      ['c', 'DROP_OLDEST'],
    ]);
  });

  it('DROP_NEWEST drops the arriving values', () => {
    const drops: [string, DropReason][] = [];
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(
        cold('abcde|').pipe(
          backpressure(slow(10), { bufferSize: 2, backpressure: BackpressureStrategy.DROP_NEWEST, onDrop: (v, r) => drops.push([v, r]) }),
        ),
      ).toBe('10ms a 9ms b 9ms (c|)');
    });
    expect(drops).toEqual([
      ['d', 'DROP_NEWEST'],
      ['e', 'DROP_NEWEST'],
    ]);
  });

  it('ERROR fails downstream with BufferOverflowError and cancels the running project', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const inner = cold('----------(x|)');
      expectObservable(
        cold('abcd|').pipe(backpressure(() => inner, { bufferSize: 2, backpressure: BackpressureStrategy.ERROR })),
      ).toBe('---#', undefined, new BufferOverflowError('backpressure', 2));
      expectSubscriptions(inner.subscriptions).toBe('^--!');
    });
  });

  it('BLOCK drops a parked value when offerTimeout passes and an extra one past maxPendingOffers', () => {
    const drops: [string, DropReason][] = [];
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold('abcd|');
      const result = source.pipe(
        backpressure(slow(10), {
          bufferSize: 1,
          backpressure: BackpressureStrategy.BLOCK,
          offerTimeout: 5,
          maxPendingOffers: 1,
          onDrop: (v, r) => drops.push([v, r]),
        }),
      );
      expectObservable(result).toBe('10ms a 9ms (b|)');
    });
    expect(drops).toEqual([
      ['d', 'PENDING_OFFERS_FULL'],
      ['c', 'OFFER_TIMEOUT'],
    ]);
  });

  it('BLOCK times the offer on virtual time: a parked value expires exactly at offerTimeout', () => {
    const when: Record<string, number> = {};
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const result = cold('ab-c|').pipe(
        backpressure(slow(20), {
          bufferSize: 1,
          backpressure: BackpressureStrategy.BLOCK,
          offerTimeout: 7,
          onDrop: (v) => (when[v] = scheduler.now()),
        }),
      );
      expectObservable(result).toBe('20ms a 19ms (b|)');
    });
    expect(when).toEqual({ c: 10 });
  });

  it('BLOCK loses nothing when space frees up within offerTimeout', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const result = cold('abcd|').pipe(
        backpressure(slow(10), { bufferSize: 1, backpressure: BackpressureStrategy.BLOCK, offerTimeout: 100, maxPendingOffers: 2 }),
      );
      expectObservable(result).toBe('10ms a 9ms b 9ms c 9ms (d|)');
    });
  });

  it('runs up to concurrency projects at once', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('abc|').pipe(backpressure(slow(10), { concurrency: 2 }))).toBe('10ms a b 8ms (c|)');
    });
  });

  it('passes the index of each projected value', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('abc|').pipe(backpressure((v, i) => of(`${v}${i}`)))).toBe('xyz|', { x: 'a0', y: 'b1', z: 'c2' });
    });
  });

  it('unsubscription discards the buffer and cancels the running projects', () => {
    testScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const inner = cold('----------x|');
      const source = hot('abc');
      expectObservable(source.pipe(backpressure(() => inner, { concurrency: 2 })), '^----!').toBe('');
      expectSubscriptions(inner.subscriptions).toBe(['^----!', '-^---!']);
    });
  });

  it('a synchronous source stops as soon as downstream unsubscribes (take on an endless source)', () => {
    const { source: endless, pulled } = countingSource();
    const seen: number[] = [];
    endless.pipe(backpressure((n) => of(n)), take(3)).subscribe((n) => seen.push(n));
    expect(seen).toEqual([0, 1, 2]);
    expect(pulled()).toBe(3);
  });

  it('a synchronous project stops as soon as downstream unsubscribes', () => {
    const { source: endless, pulled } = countingSource();
    const seen: number[] = [];
    of('go').pipe(backpressure(() => endless), take(3)).subscribe((n) => seen.push(n));
    expect(seen).toEqual([0, 1, 2]);
    expect(pulled()).toBe(3);
  });

  it('ERROR stops a synchronous source at the overflow', () => {
    const { source: burst, pulled } = countingSource();
    const errors: unknown[] = [];
    burst.pipe(backpressure(() => NEVER, { bufferSize: 2, backpressure: BackpressureStrategy.ERROR })).subscribe({ error: (e: unknown) => errors.push(e) });
    expect(errors[0]).toBeInstanceOf(BufferOverflowError);
    expect(pulled()).toBe(4);
  });

  it('a source error fails at once, discarding the buffer', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('ab#').pipe(backpressure(slow(10)))).toBe('--#');
    });
  });

  it('a project error or throw fails downstream', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('a|').pipe(backpressure(() => throwError(() => 'boom')))).toBe('#', undefined, 'boom');
      expectObservable(
        cold('a|').pipe(
          backpressure<string, string>(() => {
            throw 'thrown';
          }),
        ),
      ).toBe('#', undefined, 'thrown');
    });
  });

  it('an onDrop callback that throws fails downstream', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const result = cold('abc|').pipe(
        backpressure(() => NEVER, {
          bufferSize: 1,
          onDrop: () => {
            throw 'bad listener';
          },
        }),
      );
      expectObservable(result).toBe('--#', undefined, 'bad listener');
    });
  });

  it('a value emitted into the source while a synchronous project runs waits for that project, in order', () => {
    const source = new Subject<number>();
    const log: string[] = [];
    source
      .pipe(
        backpressure((n: number) => {
          log.push(`start ${n}`);
          return new Observable<number>((inner) => {
            inner.next(n);
            log.push(`end ${n}`);
            inner.complete();
          });
        }),
      )
      .subscribe((n) => {
        log.push(`got ${n}`);
        if (n < 2) source.next(n + 1);
      });
    source.next(0);
    expect(log).toEqual(['start 0', 'got 0', 'end 0', 'start 1', 'got 1', 'end 1', 'start 2', 'got 2', 'end 2']);
  });

  it('projects of values that find a free slot run at once, synchronously, each with its index', () => {
    const seen: string[] = [];
    of('a', 'b', 'c')
      .pipe(backpressure((value: string, index) => of(`${value}${index}`), { concurrency: 2 }))
      .subscribe((value) => seen.push(value));
    expect(seen).toEqual(['a0', 'b1', 'c2']);
  });

  it('does not recurse when projects complete synchronously', () => {
    const source = new Subject<number>();
    const seen: number[] = [];
    const gate = new Subject<number>();
    let first = true;
    source
      .pipe(
        backpressure((n) => {
          if (first) {
            first = false;
            return gate;
          }
          return of(n);
        }, { bufferSize: 100_000 }),
      )
      .subscribe((n) => seen.push(n));
    for (let i = 0; i < 100_000; i++) source.next(i);
    gate.complete();
    expect(seen.length).toBe(99_999);
    expect(seen[seen.length - 1]).toBe(99_999);
  });

  it('rejects bad options with a ConfigError naming the field', () => {
    expect(() => backpressure(() => of(1), { bufferSize: -1 })).toThrow(ConfigError);
    expect(() => backpressure(() => of(1), { bufferSize: -1 })).toThrow('backpressure options: bufferSize must be a positive integer, got -1');
    expect(() => backpressure(() => of(1), { backpressure: 'WAIT' as BackpressureStrategy })).toThrow(/backpressure must be one of/);
  });

  it('refuses the old `strategy` key by name (the option is `backpressure`, as on channels)', () => {
    expect(() => backpressure(() => of(1), { strategy: BackpressureStrategy.BLOCK } as never)).toThrow(/backpressure options: strategy is not a known option/);
  });
});
