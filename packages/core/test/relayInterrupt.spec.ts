import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { answerInterrupt, askForInput, ConfigError, InterruptAnswerError, InterruptNotFoundError, observeRun, pendingInterrupts, pendingInterrupts$, relayInterrupt, type RunEventOf } from '../src';

type Schema = RunEventOf<'interrupt'>['schema'];

/** An `interrupt` event as another process would have said it. */
function askedElsewhere(schema: Schema, interruptId = crypto.randomUUID()): RunEventOf<'interrupt'> {
  return { type: 'interrupt', runId: `run-${interruptId}`, callId: 'ask', parentCallId: 'call', at: 0, interruptId, kind: 'input', question: 'How many days?', schema };
}
const daysSchema = z.toJSONSchema(z.number().int().min(1)) as Schema;

describe('relayInterrupt', () => {
  it('checks an answer against the event’s JSON Schema: a bad one throws and the question stays listed, a good one is delivered as JSON and closes it', () => {
    const event = askedElsewhere(daysSchema);
    const delivered: unknown[] = [];
    const close = relayInterrupt(event, (answer) => delivered.push(answer));
    expect(pendingInterrupts(event.runId)).toEqual([event]);

    expect(() => answerInterrupt(event.runId, event.interruptId, 0)).toThrow(InterruptAnswerError);
    expect(() => answerInterrupt(event.runId, event.interruptId, 'three')).toThrow(InterruptAnswerError);
    expect(() => answerInterrupt(event.runId, event.interruptId, undefined)).toThrow(InterruptAnswerError);
    expect(delivered).toEqual([]);
    expect(pendingInterrupts(event.runId)).toEqual([event]);

    answerInterrupt(event.runId, event.interruptId, 3);
    expect(delivered).toEqual([3]);
    expect(pendingInterrupts(event.runId)).toEqual([]);
    expect(() => answerInterrupt(event.runId, event.interruptId, 4)).toThrow(InterruptNotFoundError);
    close();
  });

  it('closes the question when its close function is called (once), and pendingInterrupts$ says so', () => {
    const event = askedElsewhere(daysSchema);
    const lists: number[] = [];
    const watch = pendingInterrupts$(event.runId).subscribe((open) => lists.push(open.length));
    const close = relayInterrupt(event, () => undefined);
    close();
    close();
    watch.unsubscribe();
    expect(lists).toEqual([0, 1, 0]);
    expect(() => answerInterrupt(event.runId, event.interruptId, 3)).toThrow(InterruptNotFoundError);
  });

  it('takes any JSON answer for a schema zod cannot read back, and leaves the check to the asker', () => {
    const event = askedElsewhere({ $ref: '#/$defs/missing' } as Schema);
    const delivered: unknown[] = [];
    relayInterrupt(event, (answer) => delivered.push(answer));
    expect(() => answerInterrupt(event.runId, event.interruptId, () => 1)).toThrow(InterruptAnswerError);
    answerInterrupt(event.runId, event.interruptId, { anything: [1, 'two'] });
    expect(delivered).toEqual([{ anything: [1, 'two'] }]);
  });

  it('keeps the question open and gives the error to whoever answered when delivering throws', () => {
    const event = askedElsewhere(daysSchema);
    let fail = true;
    const delivered: unknown[] = [];
    relayInterrupt(event, (answer) => {
      if (fail) throw new Error('Redis is away');
      delivered.push(answer);
    });
    expect(() => answerInterrupt(event.runId, event.interruptId, 2)).toThrow('Redis is away');
    expect(pendingInterrupts(event.runId)).toHaveLength(1);
    fail = false;
    answerInterrupt(event.runId, event.interruptId, 2);
    expect(delivered).toEqual([2]);
  });

  it('does not open twice an interrupt already open in this process: the asker here gets the answer', async () => {
    const runId = crypto.randomUUID();
    const events = lastValueFrom(observeRun('days', 'go', (run) => askForInput(run, 'How many days?', { schema: z.number() }), { runId }).pipe(toArray()));
    const [asked] = pendingInterrupts(runId);
    const delivered: unknown[] = [];
    const close = relayInterrupt(asked as RunEventOf<'interrupt'>, (answer) => delivered.push(answer));
    close();
    expect(pendingInterrupts(runId)).toHaveLength(1);
    answerInterrupt(runId, asked!.interruptId, 5);
    expect(delivered).toEqual([]);
    expect((await events).find((event) => event.type === 'interrupt-end')).toMatchObject({ interruptId: asked!.interruptId, answered: true, answer: 5 });
  });

  it.each([undefined, null, { type: 'call-start', runId: 'r', interruptId: 'i' }, { type: 'interrupt', runId: '', interruptId: 'i' }])('refuses %p as the event with a ConfigError', (bad) => {
    expect(() => relayInterrupt(bad as never, () => undefined)).toThrow(ConfigError);
  });

  it('refuses a deliver that is not a function with a ConfigError', () => {
    expect(() => relayInterrupt(askedElsewhere(daysSchema), 'send' as never)).toThrow(ConfigError);
  });
});
