import fc from 'fast-check';
import { lastValueFrom, map, takeWhile, timer, toArray } from 'rxjs';
import { ConfigError, defineAgent, MemoryRunStore } from '@rxagents/core';
import { scriptedAgent } from '@rxagents/testing';
import { ConditionalHandoff, DefaultHandoff, handoff, HandoffChain, HandoffContext, parallelHandoffsEvents$, routingAgent, handoffFilters, type ToolCallingModel } from '@rxagents/handoff';
import { journalOf, resumeFromEveryCut, resumeFromEveryTwoCuts, type ResumeCheck, type Scenario, type ScenarioContext } from '../../../test/support/durableResume';

// Each spec runs a whole run once per cut of its journal (hundreds of runs): more than jest's default 5 s on a
// loaded machine, whatever the code's speed.
jest.setTimeout(60_000);

// Every spec here runs a primitive once with a store, then resumes it from each cut of its journal (the
// first k records, for every k) and checks what a resumed run gives: the uninterrupted run's result and
// event tree (see eventTree: timings removed, interrupted attempts dropped, nodes by place key), and each
// agent called once for each of its calls that had not ended in the cut journal.

/** An agent answering in two chunks after `delay` virtual ms, the second one saying how long its input was. */
const agentOn = ({ scheduler, calls }: ScenarioContext, id: string, delay: number) =>
  calls.count(scriptedAgent(id, (input) => ({ chunks: [`${id} read `, `${input.length}`], delay, interval: 1 }), { scheduler }));

type Checks = Awaited<ReturnType<typeof resumeFromEveryCut>>;

/** Every resume gave what it had to (`without` leaves checks out: see the failing spec below). */
function expectEveryResume(checks: Checks, size: number | undefined, without: readonly (keyof ResumeCheck)[] = []): void {
  if (size !== undefined) expect(checks.resumes).toHaveLength(size);
  const shown = (check: ResumeCheck) => Object.fromEntries(Object.entries(check).filter(([key]) => !without.includes(key as keyof ResumeCheck)));
  for (const { actual, expected } of checks.resumes) expect(shown(actual)).toEqual(shown(expected));
}

const chain: Scenario = (context) => {
  const { scheduler } = context;
  const steps = HandoffChain.builder()
    .add(agentOn(context, 'intake', 3))
    .add(agentOn(context, 'billing', 5))
    .add(agentOn(context, 'audit', 2))
    .add(agentOn(context, 'notify', 4))
    .build();
  return ({ store, runId }) => steps.events$(new DefaultHandoff({ scheduler }), HandoffContext.of('invoice-42'), { scheduler, store, runId });
};

const routed: Scenario = (context) => {
  const { scheduler } = context;
  const router = new ConditionalHandoff()
    .when((task) => task.payload.kind === 'refund', agentOn(context, 'refunds', 4))
    .otherwise(agentOn(context, 'support', 2));
  return ({ store, runId }) => router.events$(new DefaultHandoff({ scheduler }), { id: 'triage' }, HandoffContext.of('t-9', { kind: 'refund' }), { scheduler, store, runId });
};

const routingDesk: Scenario = (context) => {
  const { scheduler } = context;
  const billing = handoff({ agent: agentOn(context, 'billing', 3), condition: handoffFilters.topic(['invoice']), scheduler });
  const support = handoff({ agent: agentOn(context, 'support', 2), scheduler });
  const desk = routingAgent({ id: 'desk', handoffs: [billing, support] });
  return ({ store, runId }) => desk.events$('A question about my invoice', { scheduler, store, runId });
};

/** A routing agent whose model picks the refunds handoff after 2 virtual ms, counting how often it is asked. */
const modelDesk = (asked: { count: number }): Scenario => (context) => {
  const { scheduler } = context;
  const model: ToolCallingModel = () => {
    asked.count++;
    return timer(2, scheduler).pipe(map(() => ({ toolCalls: [{ id: 'call-1', name: 'transfer_to_refunds', arguments: '{}' }] })));
  };
  const desk = routingAgent({ id: 'desk', model, handoffs: [handoff({ agent: agentOn(context, 'refunds', 3), scheduler }), handoff({ agent: agentOn(context, 'support', 1), scheduler })] });
  return ({ store, runId }) => desk.events$('I want my money back', { scheduler, store, runId });
};

const fanOut = (latencies: readonly number[], maxConcurrent: number): Scenario => (context) => {
  const { scheduler } = context;
  const tasks = latencies.map((delay, index) => [handoff({ agent: agentOn(context, `worker-${index}`, delay), scheduler }), `Task ${index}`] as const);
  return ({ store, runId }) => parallelHandoffsEvents$({ id: 'triage' }, tasks, { maxConcurrent, store, runId });
};

describe('durable handoffs resume from any cut of their journal', () => {
  it('a chain of four agents (23 cuts)', async () => {
    const checks = await resumeFromEveryCut(chain);
    expect(checks.expected.result).toMatchObject({ success: true, output: 'notify read 78' });
    expectEveryResume(checks, 23);
  });

  it('a chain of four agents resumed, cut again anywhere in the resumed journal and resumed again (every pair of cuts)', async () => {
    const checks = await resumeFromEveryTwoCuts(chain);
    expect(checks.resumes.length).toBeGreaterThan(23 * 10);
    expectEveryResume(checks, undefined);
  });

  it('a ConditionalHandoff routed by a predicate (9 cuts)', async () => {
    const checks = await resumeFromEveryCut(routed);
    expect(checks.expected.result).toMatchObject({ success: true, output: 'refunds read 54' });
    expectEveryResume(checks, 9);
  });

  it('a routing agent handing off on a condition: result and calls (12 cuts)', async () => {
    const checks = await resumeFromEveryCut(routingDesk, { uncounted: ['desk'] });
    expect(checks.expected.result).toMatchObject({ success: true, output: 'billing read 27' });
    expectEveryResume(checks, 12, ['tree']);
  });

  it('a routing agent handing off on a condition: the event tree too (12 cuts)', async () => {
    expectEveryResume(await resumeFromEveryCut(routingDesk, { uncounted: ['desk'] }), 12);
  });

  it('a routing agent whose model picks the handoff: result and calls; the model is asked again only when the routing call runs again', async () => {
    const asked = { count: 0 };
    const checks = await resumeFromEveryCut(modelDesk(asked), { uncounted: ['desk'] });
    expect(checks.expected.result).toMatchObject({ success: true, output: 'refunds read 20' });
    expectEveryResume(checks, 12, ['tree']);
    // Once in the uninterrupted run, then once per cut at which the routing agent's call had not ended (all but the last two).
    expect(asked.count).toBe(1 + 10);
  });

  it('parallelHandoffs with random latencies under a concurrency limit (every cut of each run)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 2, maxLength: 5 }), fc.integer({ min: 1, max: 3 }), async (latencies, maxConcurrent) => {
        const checks = await resumeFromEveryCut(fanOut(latencies, maxConcurrent));
        expect(checks.expected.result).toMatchObject({ success: true });
        expectEveryResume(checks, 2 + 7 * latencies.length);
      }),
      { numRuns: 25 },
    );
  });

  it('parallelHandoffs whose targets fail or time out: the same failed outcomes, rebuilt from the journal (every cut)', async () => {
    const failing: Scenario = (context) => {
      const { scheduler, calls } = context;
      const slow = handoff({ agent: agentOn(context, 'slow', 20), timeout: 5, scheduler });
      const broken = handoff({ agent: calls.count(scriptedAgent('broken', { error: new Error('ledger offline'), delay: 2 }, { scheduler })), scheduler });
      const fine = handoff({ agent: agentOn(context, 'fine', 1), scheduler });
      return ({ store, runId }) => parallelHandoffsEvents$({ id: 'triage' }, [[fine, 'Task 0'], [broken, 'Task 1'], [slow, 'Task 2']], { store, runId });
    };
    const checks = await resumeFromEveryCut(failing);
    expect(checks.expected.result).toMatchObject({ success: false, error: { message: expect.stringContaining('ledger offline') } });
    expectEveryResume(checks, checks.expected.k);
  });

  it('Handoff.events$ and DefaultHandoff.events$ resume too (7 and 7 cuts)', async () => {
    const single: Scenario = (context) => {
      const { scheduler } = context;
      const toBilling = handoff({ agent: agentOn(context, 'billing', 3), scheduler });
      return ({ store, runId }) => toBilling.events$({ id: 'triage' }, { input: 'invoice?' }, { store, runId });
    };
    const direct: Scenario = (context) => {
      const { scheduler } = context;
      const billing = agentOn(context, 'billing', 3);
      return ({ store, runId }) => new DefaultHandoff({ scheduler }).events$({ id: 'intake' }, billing, HandoffContext.of('ticket-7'), { scheduler, store, runId });
    };
    expectEveryResume(await resumeFromEveryCut(single), 7);
    expectEveryResume(await resumeFromEveryCut(direct), 7);
  });

  it('a reader that stops the run at an event finds that event in the journal', async () => {
    let billed = 0;
    const steps = HandoffChain.builder()
      .add(defineAgent('intake', async () => 'ok'))
      .add(
        defineAgent('billing', async () => {
          billed++;
          return 'billed';
        }),
      )
      .add(defineAgent('audit', async () => 'audited'))
      .build();
    const store = new MemoryRunStore();
    const start = () => steps.events$(new DefaultHandoff(), HandoffContext.of('invoice-42'), { store, runId: 'r1' });
    await lastValueFrom(start().pipe(takeWhile((event) => event.type !== 'call-end', true)));
    await new Promise((resolve) => setImmediate(resolve));
    expect((await journalOf(store, 'r1')).map((event) => event.type)).toContain('call-end');
    await lastValueFrom(start());
    expect(billed).toBe(1);
  });

  it('takes the run\'s lease under leaseOwner: a lease its owner still holds is taken back at once', async () => {
    const steps = HandoffChain.builder().add(scriptedAgent('a', 'x')).add(scriptedAgent('b', 'y')).build();
    const store = new MemoryRunStore();
    await store.acquireLease('r1', 60_000, { owner: 'registry-a' });
    const start = (leaseOwner: string) => lastValueFrom(steps.events$(new DefaultHandoff(), HandoffContext.of('t'), { store, runId: 'r1', leaseOwner }).pipe(toArray()));
    await expect(start('registry-b')).rejects.toMatchObject({ code: 'RUN_LEASED', holder: { owner: 'registry-a' } });
    const events = await start('registry-a');
    expect(events.at(-1)).toMatchObject({ type: 'run-end', parentCallId: null, success: true });
  });

  it('refuses a store, run id or lease that is not one, naming the option', () => {
    const steps = HandoffChain.builder().add(scriptedAgent('a', 'x')).add(scriptedAgent('b', 'y')).build();
    const start = (options: object) => () => steps.events$(new DefaultHandoff(), HandoffContext.of('t'), options);
    expect(start({ store: {} })).toThrow(ConfigError);
    expect(start({ store: {} })).toThrow(/store must be a run store/);
    expect(start({ runId: ' ' })).toThrow(/runId must be a non-blank string/);
    expect(start({ store: new MemoryRunStore(), leaseTtlMs: 1 })).toThrow(/leaseTtlMs must be/);
    expect(start({ store: new MemoryRunStore(), leaseOwner: ' ' })).toThrow(/leaseOwner must be/);
    expect(() => parallelHandoffsEvents$({ id: 's' }, [], { runId: '' })).toThrow(/runId/);
  });
});
