import { map, of, throwError, timer, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { defineAgent, invoke$, observeRun, type RunEvent } from '../src';

const summary = (event: RunEvent): string => (event.type === 'custom' ? `custom ${event.name}` : event.type);

const testScheduler = (): TestScheduler => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('a run whose body forgot its context says so', () => {
  it('a body without a parameter that reports nothing emits run-context-unused before run-end, naming the run and the fix', () => {
    testScheduler().run(({ expectObservable }) => {
      const agent = defineAgent('writer', () => timer(5).pipe(map(() => 'Once upon a time')));
      const events = observeRun('story', 'go', () => invoke$(agent, 'go'));
      expectObservable(events.pipe(toArray())).toBe('5ms (x|)', {
        x: [
          expect.objectContaining({ type: 'run-start', at: 0 }),
          expect.objectContaining({
            type: 'custom',
            at: 5,
            name: 'run-context-unused',
            data: { message: expect.stringMatching(/^observeRun\("story"\): .*\(run\) => invoke\$\(agent, input, \{ run \}\)/) },
          }),
          expect.objectContaining({ type: 'run-end', at: 5, success: true }),
        ],
      });
    });
  });

  it('says so too when such a body fails', async () => {
    const events: RunEvent[] = [];
    observeRun('story', 'go', () => throwError(() => new Error('down'))).subscribe((event) => events.push(event));
    expect(events.map(summary)).toEqual(['run-start', 'custom run-context-unused', 'run-end']);
  });

  it('a body that passes its context on reports its calls and no warning', () => {
    const writer = defineAgent('writer', () => of('Once'));
    const events: RunEvent[] = [];
    observeRun('story', 'go', (run) => invoke$(writer, 'go', { run })).subscribe((event) => events.push(event));
    expect(events.map(summary)).toEqual(['run-start', 'call-start', 'text-delta', 'call-end', 'run-end']);
  });

  it('a body that takes a context but calls nothing (a cached answer) is a quiet run', () => {
    const events: RunEvent[] = [];
    observeRun('story', 'go', (_run) => of('cached')).subscribe((event) => events.push(event));
    expect(events.map(summary)).toEqual(['run-start', 'run-end']);
  });
});
