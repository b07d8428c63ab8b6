import { first, lastValueFrom, toArray } from 'rxjs';
import { defineAgent, emptyRunView, observeRun, reduceRunView, type RunEvent } from '@rxagents/core';
import { Patterns, type ExecutionResult, type PatternBuilder } from '@rxagents/patterns';
import { expectValidEvents, ofType } from './runEventsHelpers';

type AnyBuilder = PatternBuilder<unknown> & { overChannel(options?: { id?: string }): PatternBuilder<unknown> };

/** Fresh agents for each run, so a run that counts its turns starts from zero every time. */
const patterns: Record<string, () => AnyBuilder> = {
  debate: () =>
    Patterns.debate({
      agents: [defineAgent('pro', async (input) => `pro after ${input.length}`), defineAgent('con', async (input) => `con after ${input.length}`)],
      maxRounds: 2,
    }) as unknown as AnyBuilder,
  voting: () =>
    Patterns.voting({ agents: ['a', 'b', 'c'].map((id) => defineAgent(id, async () => (id === 'b' ? 'no' : 'yes'))) }) as unknown as AnyBuilder,
  parallel: () =>
    Patterns.parallel({
      agents: [
        defineAgent('legal', async () => 'fine'),
        defineAgent('security', async () => {
          throw new Error('scanner down');
        }),
      ],
    }) as unknown as AnyBuilder,
  sequence: () => Patterns.sequence({ agents: ['draft', 'edit', 'polish'].map((id) => defineAgent(id, async (input) => `${id}(${input.slice(0, 12)})`)) }) as unknown as AnyBuilder,
  'sequence (fails)': () =>
    Patterns.sequence({
      agents: [
        defineAgent('draft', async () => 'v1'),
        defineAgent('flaky', async () => {
          throw new Error('model down');
        }),
        defineAgent('polish', async () => 'never'),
      ],
    }) as unknown as AnyBuilder,
  supervisor: () => {
    let turn = 0;
    const lead = defineAgent('lead', async () => (turn++ === 0 ? 'DELEGATE researcher: numbers' : 'FINAL: up 12%'));
    return Patterns.supervisor({ supervisor: lead, workers: [defineAgent('researcher', async () => 'Q3 +12%')] }) as unknown as AnyBuilder;
  },
  'supervisor (escalates)': () =>
    Patterns.supervisor({ supervisor: defineAgent('lead', async () => 'DELEGATE w: again'), workers: [defineAgent('w', async () => 'done')], maxSteps: 2 }) as unknown as AnyBuilder,
};

const decisionOf = { completed: 'complete', escalated: 'escalate', failed: 'failed', deadlocked: 'complete' } as const;

describe('reducing the run events gives the result of the Promise form', () => {
  for (const [name, make] of Object.entries(patterns)) {
    for (const mode of ['direct', 'channel'] as const) {
      it(`${name}, ${mode}`, async () => {
        const builder = (): PatternBuilder<unknown> => (mode === 'direct' ? make() : make().overChannel({ id: `${name}-room` }));
        const result: ExecutionResult<unknown> = await builder().execute('Go');
        const events: RunEvent[] = await lastValueFrom(builder().events$('Go').pipe(toArray()));
        expectValidEvents(events);

        // The root node ends as the result: a failed status fails, anything else succeeds with the output.
        const view = events.reduce(reduceRunView, emptyRunView);
        const root = view.nodes.find((node) => node.callId === view.rootId);
        expect(root?.name).toBe(result.pattern);
        expect(root?.status).toBe(result.status === 'failed' ? 'failed' : 'completed');
        expect(root?.text).toBe(result.output);

        // The calls in the view are the result's agent results, each with its output or its failure.
        const calls = view.nodes.filter((node) => node.kind === 'call');
        const outcome = (agentId: string, ok: boolean, text: string): string => `${agentId}:${ok ? text : 'failed'}`;
        expect(calls.map((call) => outcome(call.name, call.status === 'completed', call.text)).sort()).toEqual(
          result.results.map((r) => outcome(r.agentId, r.success, r.success ? r.output : '')).sort(),
        );

        // A message per successful reply, in the order they reached the run; rounds; one termination.
        expect(ofType(events, 'message').map((m) => `${m.speaker}:${m.content}`)).toEqual(result.results.filter((r) => r.success).map((r) => `${r.agentId}:${r.success ? r.output : ''}`));
        const rounds = ofType(events, 'round-end').map((event) => event.round);
        expect(rounds).toEqual(Array.from({ length: result.iterations }, (_, index) => index + 1));
        const terminations = ofType(events, 'termination');
        expect(terminations.map((event) => [event.decision, event.reason])).toEqual([[decisionOf[result.status as keyof typeof decisionOf], result.reason]]);

        // Over a channel, a metrics sample of the run's channel after each post (a message, or a failed
        // reply a collecting pattern posts too) and one at the end.
        const metrics = ofType(events, 'metrics');
        if (mode === 'direct') expect(metrics).toEqual([]);
        else {
          const emitted = metrics.map((sample) => sample.metrics['emitted']);
          const posts = metrics.length - 1;
          expect(posts).toBeGreaterThanOrEqual(ofType(events, 'message').length);
          expect(metrics.every((sample) => sample.source === `${name}-room`)).toBe(true);
          expect(emitted).toEqual([...Array.from({ length: posts }, (_, index) => index + 1), posts]);
          expect(events[events.length - 2]?.type).toBe('metrics');
        }
      });
    }
  }
});

describe('a consumer that takes the result and leaves (first()) sees the pattern node end as its result, not cancelled', () => {
  for (const [name, make] of Object.entries(patterns)) {
    for (const mode of ['direct', 'channel'] as const) {
      it(`${name}, ${mode}`, async () => {
        const builder = (): PatternBuilder<unknown> => (mode === 'direct' ? make() : make().overChannel({ id: `${name}-room` }));
        const result = await builder().execute('Go');
        const events: RunEvent[] = await lastValueFrom(observeRun('app', 'Go', (run) => builder().execute$('Go', { run }).pipe(first())).pipe(toArray()));
        const view = events.reduce(reduceRunView, emptyRunView);
        const node = view.nodes.find((each) => each.name === result.pattern);
        expect(node?.status).toBe(result.status === 'failed' ? 'failed' : 'completed');
        expect(view.nodes.map((each) => each.status)).not.toContain('cancelled');
      });
    }
  }
});
