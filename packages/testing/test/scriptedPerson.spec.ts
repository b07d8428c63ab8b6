import { forkJoin, map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { askForApproval, askForInput, ConfigError, observeRun, type RunEvent } from '@rxagents/core';
import { scriptedPerson } from '@rxagents/testing';

const kinds = (event: RunEvent): string => (event.type === 'run-end' ? `end:${event.output ?? event.error?.code}` : event.type);

describe('scriptedPerson', () => {
  it('answers each question of its run after afterMs on virtual time, each once', () => {
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    scheduler.run(({ expectObservable }) => {
      const asked: string[] = [];
      const person = scriptedPerson(
        'plan',
        (question) => {
          asked.push(question.question);
          return question.kind === 'approval' ? { approved: true } : `${question.question.length}`;
        },
        { afterMs: 5 },
      );
      const events$ = observeRun('plan', 'go', (run) => forkJoin([askForInput(run, 'Where?'), askForApproval(run, 'book', { nights: 2 })]).pipe(map(([where, decision]) => `${where}/${decision.approved}`)), { runId: 'plan' });
      expectObservable(events$.pipe(map(kinds))).toBe('(abb)(ccd|)', { a: 'run-start', b: 'interrupt', c: 'interrupt-end', d: 'end:6/true' });
      scheduler.schedule(() => {
        expect(asked).toEqual(['Where?', 'Allow book?']);
        person.unsubscribe();
      }, 10);
    });
  });

  it('leaves a question that closed before its answer was due', () => {
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    scheduler.run(({ expectObservable }) => {
      scriptedPerson('late', () => 'too late', { afterMs: 50 });
      const events$ = observeRun('late', 'go', (run) => askForInput(run, 'Quick?', { timeout: 10 }), { runId: 'late' });
      expectObservable(events$.pipe(map(kinds))).toBe('(ab) 6ms (cd|)', { a: 'run-start', b: 'interrupt', c: 'interrupt-end', d: 'end:INTERRUPT_TIMEOUT' });
    });
  });

  it('refuses a blank run id, an answer that is not a function and an unknown option', () => {
    expect(() => scriptedPerson('', () => 1)).toThrow(ConfigError);
    expect(() => scriptedPerson('r', 'yes' as never)).toThrow(/answer/);
    expect(() => scriptedPerson('r', () => 1, { delay: 3 } as never)).toThrow(/delay/);
  });
});
