import { of } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { AgentError, defineAgent } from '@rxagents/core';
import { failingAgent, hangingAgent } from '@rxagents/testing';
import { DefaultHandoff, handoff, HandoffChain, HandoffContext, HandoffTimeoutError, parallelHandoffs$ } from '@rxagents/handoff';

const testScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const triage = { id: 'triage' };

describe("a failing target's error", () => {
  it('is an AgentError naming the target, what it threw as cause, from handoff() and from DefaultHandoff alike', async () => {
    const exploded = new Error('bad exploded');
    const bad = defineAgent('bad', async () => {
      throw exploded;
    });
    const outcome = await handoff({ agent: bad }).execute(triage, { input: 'x' });
    const result = await new DefaultHandoff().execute(triage, bad, HandoffContext.of('t'));
    for (const failure of [outcome, result]) {
      expect(failure.success).toBe(false);
      const error = failure.success ? undefined : failure.error;
      expect(error).toBeInstanceOf(AgentError);
      expect(error?.message).toBe('Agent "bad" failed: bad exploded');
      expect(error?.cause).toBe(exploded);
    }
  });

  it("is measured on the scheduler from the handoff's start to the failure", () => {
    testScheduler().run(({ expectObservable }) => {
      const bad = failingAgent('bad', new Error('bad exploded'), { delay: 30 });
      const outcome$ = handoff({ agent: bad }).execute$(triage, { input: 'x' });
      expectObservable(outcome$, '^').toBe('30ms (o|)', { o: expect.objectContaining({ success: false, durationMs: 30, durationSeconds: 0.03 }) });
    });
  });

  it("a guard's outcome in a fan-out is measured from the task's start: a timeout lasts its limit", () => {
    testScheduler().run(({ expectObservable }) => {
      const slow = handoff({ agent: hangingAgent('slow'), timeout: 40 });
      const fast = defineAgent('fast', () => of('done'));
      const outcomes$ = parallelHandoffs$(triage, [[slow, 'wait'], [fast, 'go']]);
      expectObservable(outcomes$).toBe('40ms (o|)', {
        o: [expect.objectContaining({ success: false, error: expect.any(HandoffTimeoutError), startedAt: 0, durationMs: 40, durationSeconds: 0.04 }), expect.objectContaining({ success: true })],
      });
    });
  });

  it("a chain step whose pending predicate fails is measured from the step's start", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const writer = defineAgent('writer', async () => 'draft');
      const chain = HandoffChain.builder().add(defineAgent('intake', () => of('')))
        .add(writer, () => cold('25ms #', undefined, new Error('predicate broke'))).build();
      expectObservable(chain.execute$(new DefaultHandoff(), HandoffContext.of('t'))).toBe('25ms (r|)', {
        r: [expect.objectContaining({ success: false, startedAt: 0, durationMs: 25 })],
      });
    });
  });
});
