import { TestScheduler } from 'rxjs/testing';
import { concatWith, defer, finalize, first, from, lastValueFrom, map, NEVER, type Observable, timer, toArray } from 'rxjs';
import { ConfigError, defineAgent, emptyRunView, invoke$, lastValue, observeRun, reduceRunView, RunEventSchema, traceResult, type Agent, type RunContext, type RunEvent, type RunView } from '@rxagents/core';
import {
  ConditionalHandoff,
  DefaultHandoff,
  handoff,
  HandoffChain,
  HandoffContext,
  handoffFilters,
  handoffTo,
  parallelHandoffs,
  parallelHandoffs$,
  parallelHandoffsEvents$,
  routingAgent,
  type HandoffResult,
  type HandoffStrategy,
} from '@rxagents/handoff';

const testScheduler = (): TestScheduler => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

/** `type@at who` (who: the agent, the node's name, or from>to), with a delta's text or a failure's error name. */
function brief(event: RunEvent): string {
  const who = event.type === 'handoff' ? `${event.from}>${event.to}` : 'agentId' in event ? event.agentId : 'name' in event ? event.name : '';
  const extra =
    event.type === 'text-delta' ? `:${event.delta}` : event.type === 'call-error' || (event.type === 'run-end' && !event.success) ? `:${event.error?.name}` : '';
  return `${event.type}@${event.at} ${who}${extra}`;
}

/**
 * Every event, checked against the schema (through JSON, as a reader on the wire gets it). No node or call
 * the events show says it was cancelled: these runs are read to the end.
 */
function checked(events: readonly RunEvent[]): readonly RunEvent[] {
  for (const event of events) {
    expect(RunEventSchema.parse(JSON.parse(JSON.stringify(event)))).toEqual(event);
    expect(event.type === 'run-end' || event.type === 'call-error' ? event.error?.name : undefined).not.toBe('AbortError');
  }
  return events;
}

async function eventsOf(events$: Observable<RunEvent>): Promise<readonly RunEvent[]> {
  return checked(await lastValueFrom(events$.pipe(toArray())));
}

function viewOf(events: readonly RunEvent[]): RunView {
  return events.reduce(reduceRunView, emptyRunView);
}

/** The calls of a view: agent id and text, in start order. */
function callsOf(view: RunView): { agentId: string; text: string }[] {
  return view.nodes.filter((node) => node.kind === 'call').map((node) => ({ agentId: node.name, text: node.text }));
}

function rootEnd(events: readonly RunEvent[]): Extract<RunEvent, { type: 'run-end' }> {
  const end = events.at(-1);
  if (end?.type !== 'run-end' || end.parentCallId !== null) throw new Error('the last event is not the root run-end');
  return end;
}

const streaming = (id: string, marbles: string, values: Record<string, string>, cold: TestScheduler['createColdObservable']): Agent =>
  defineAgent(id, () => cold(marbles, values));

describe('run events of a routing agent', () => {
  it('a target streaming three tokens at 100/200/300 ms gives three text-deltas at 100/200/300 ms, under the handoff under the routing call', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const billing = streaming('billing', '100ms a 99ms b 99ms c|', { a: 'tok0 ', b: 'tok1 ', c: 'tok2 ' }, cold);
      const assistant = routingAgent({ id: 'assistant', handoffs: [handoff({ agent: billing, condition: handoffFilters.topic(['invoice']) })] });
      const events$ = assistant.events$('my invoice').pipe(map((event) => brief(checked([event])[0] as RunEvent)));
      // The handoff ends (its run-end) before it passes the outcome on, so the routing agent's reply comes after it.
      expectObservable(events$).toBe('(abcde) 93ms f 99ms g 99ms h (ijklm|)', {
        a: 'run-start@0 routing',
        b: 'call-start@0 assistant',
        c: 'run-start@0 handoff',
        d: 'handoff@0 assistant>billing',
        e: 'call-start@0 billing',
        f: 'text-delta@100 billing:tok0 ',
        g: 'text-delta@200 billing:tok1 ',
        h: 'text-delta@300 billing:tok2 ',
        i: 'call-end@301 billing',
        j: 'run-end@301 ',
        k: 'text-delta@301 assistant:tok0 tok1 tok2 ',
        l: 'call-end@301 assistant',
        m: 'run-end@301 ',
      });
    });
  });
});

describe('run events of a routing agent, nested and cancelled', () => {
  it('inside another run, the routed handoff shows under the routing agent\'s own call, and reducing gives the Promise form\'s reply', async () => {
    const billing = defineAgent('billing', () => from(['Invoice ', 'paid']));
    const assistant = routingAgent({ id: 'assistant', handoffs: [handoff({ agent: billing, condition: handoffFilters.topic(['invoice']) })] });
    const events = await eventsOf(observeRun('support', 'my invoice', (run) => invoke$(assistant, 'my invoice', { run })));
    const [root, assistantCall, node, billingCall] = events.filter((event) => event.type === 'run-start' || event.type === 'call-start');
    expect(assistantCall?.parentCallId).toBe(root?.callId);
    expect(node).toMatchObject({ type: 'run-start', name: 'handoff', input: 'my invoice', parentCallId: assistantCall?.callId });
    expect(events.find((event) => event.type === 'handoff')).toMatchObject({ from: 'assistant', to: 'billing', taskId: 'transfer_to_billing', callId: node?.callId });
    expect(billingCall).toMatchObject({ agentId: 'billing', parentCallId: node?.callId });

    const reply = await lastValue(invoke$(assistant, 'my invoice'));
    expect(rootEnd(events)).toMatchObject({ success: true, output: reply });
    expect(callsOf(viewOf(events))).toEqual([
      { agentId: 'assistant', text: reply },
      { agentId: 'billing', text: reply },
    ]);
  });

  it('the handoff event carries the request\'s taskId from the call\'s metadata', async () => {
    const billing = defineAgent('billing', async () => 'paid');
    const assistant = routingAgent({ id: 'assistant', handoffs: [handoff({ agent: billing, condition: () => true })] });
    const events = await eventsOf(assistant.events$('invoice', { metadata: { taskId: 'ticket-7' } }));
    expect(events.find((event) => event.type === 'handoff')).toMatchObject({ taskId: 'ticket-7' });
  });

  it('unsubscribing from events$ aborts the routing agent and its target', () => {
    const signals: AbortSignal[] = [];
    const billing = defineAgent('billing', (_input, { signal }) => (signals.push(signal), NEVER));
    const assistant = routingAgent({ id: 'assistant', handoffs: [handoff({ agent: billing, condition: () => true })] });
    const seen: RunEvent[] = [];
    const subscription = assistant.events$('invoice').subscribe((event) => seen.push(event));
    expect(signals).toHaveLength(1);
    expect(signals[0]?.aborted).toBe(false);
    subscription.unsubscribe();
    expect(signals[0]?.aborted).toBe(true);
    expect(seen.map((event) => event.type)).toEqual(['run-start', 'call-start', 'run-start', 'handoff', 'call-start']);
    checked(seen);
  });

  it('no route is a call-error and a failed run-end with the HandoffRoutingError serialised', async () => {
    const assistant = routingAgent({ id: 'assistant', handoffs: [handoff({ agent: defineAgent('billing', async () => 'paid'), condition: () => false })] });
    const events = await eventsOf(assistant.events$('hello'));
    expect(events.map((event) => event.type)).toEqual(['run-start', 'call-start', 'call-error', 'run-end']);
    expect(rootEnd(events)).toMatchObject({ success: false, error: { name: 'AgentError' } });
    expect(events[2]).toMatchObject({ agentId: 'assistant', error: { message: expect.stringContaining('no handoff condition matched') } });
  });
});

describe('run events of DefaultHandoff', () => {
  it('says run-start, handoff, the receiver\'s call with its deltas as they come, then run-end, on virtual time', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const billing = streaming('billing', '10ms a 9ms b|', { a: 'Refund ', b: 'approved' }, cold);
      const events$ = new DefaultHandoff().events$({ id: 'intake' }, billing, HandoffContext.of('ticket-7')).pipe(map((event) => brief(checked([event])[0] as RunEvent)));
      expectObservable(events$).toBe('(abc) 5ms d 9ms e (fg|)', {
        a: 'run-start@0 handoff',
        b: 'handoff@0 intake>billing',
        c: 'call-start@0 billing',
        d: 'text-delta@10 billing:Refund ',
        e: 'text-delta@20 billing:approved',
        f: 'call-end@21 billing',
        g: 'run-end@21 ',
      });
    });
  });

  it('a timeout is a call-error named AgentTimeoutError and a failed run-end at the deadline', () => {
    testScheduler().run(({ expectObservable }) => {
      const stuck = defineAgent('stuck', () => NEVER);
      const events$ = new DefaultHandoff({ timeout: 50 }).events$({ id: 'intake' }, stuck, HandoffContext.of('t')).pipe(map(brief));
      expectObservable(events$).toBe('(abc) 45ms (de|)', {
        a: 'run-start@0 handoff',
        b: 'handoff@0 intake>stuck',
        c: 'call-start@0 stuck',
        d: 'call-error@50 stuck:AgentTimeoutError',
        e: 'run-end@50 :AgentTimeoutError',
      });
    });
  });

  it('reducing the events gives the Promise form\'s result; with a run option it is a node of that run', async () => {
    const billing = defineAgent('billing', (input) => from(['got: ', input]));
    const strategy = new DefaultHandoff();
    const context = HandoffContext.of('ticket-7', { invoiceId: '42' });
    const result = await strategy.execute({ id: 'intake' }, billing, context);
    const events = await eventsOf(strategy.events$({ id: 'intake' }, billing, context));
    expect(rootEnd(events)).toMatchObject({ success: result.success, output: result.output });
    expect(events.find((event) => event.type === 'call-start')).toMatchObject({ input: result.input });
    expect(callsOf(viewOf(events))).toEqual([{ agentId: 'billing', text: result.output }]);

    const nested = await eventsOf(observeRun('outer', 'x', (run) => strategy.execute$({ id: 'intake' }, billing, context, { run })));
    const [root, node] = nested.filter((event) => event.type === 'run-start');
    expect(node).toMatchObject({ name: 'handoff', input: 'ticket-7', parentCallId: root?.callId });
  });

  it('refuses a run option that is not a run context, and a run among its defaults', () => {
    const billing = defineAgent('billing', async () => 'ok');
    expect(() => new DefaultHandoff().execute$({ id: 'a' }, billing, HandoffContext.of('t'), { run: { runId: 'r' } as never })).toThrow(/DefaultHandoff execute options: run must be a run context/);
    expect(() => new DefaultHandoff({ run: { runId: 'r' } } as never)).toThrow(/DefaultHandoff options: run is not a known option/);
  });
});

describe('run events of Handoff', () => {
  const agent = (id: string): Agent => defineAgent(id, async () => `${id} done`);

  it('a cycle ends the run with the HandoffCycleError serialised, before any call', async () => {
    const events = await eventsOf(handoff({ agent: agent('billing') }).events$({ id: 'triage' }, { input: 'again', handoffChain: ['billing'] }));
    expect(events.map((event) => event.type)).toEqual(['run-start', 'run-end']);
    expect(rootEnd(events)).toMatchObject({ success: false, error: { name: 'HandoffCycleError', code: 'HANDOFF_CYCLE' } });
  });

  it('a depth past maxDepth ends the run with the HandoffDepthError serialised', async () => {
    const events = await eventsOf(handoff({ agent: agent('billing'), maxDepth: 1 }).events$({ id: 'triage' }, { input: 'x', handoffChain: ['a'] }));
    expect(rootEnd(events)).toMatchObject({ success: false, error: { name: 'HandoffDepthError', code: 'HANDOFF_DEPTH' } });
  });

  it('a timeout is the target\'s call-error (AgentTimeoutError) and a run-end with the HandoffTimeoutError', () => {
    testScheduler().run(({ expectObservable }) => {
      const stuck = defineAgent('stuck', () => NEVER);
      const events$ = handoff({ agent: stuck, timeout: 30 }).events$({ id: 'triage' }, { input: 'x' }).pipe(map(brief));
      expectObservable(events$).toBe('(abc) 25ms (de|)', {
        a: 'run-start@0 handoff',
        b: 'handoff@0 triage>stuck',
        c: 'call-start@0 stuck',
        d: 'call-error@30 stuck:AgentTimeoutError',
        e: 'run-end@30 :HandoffTimeoutError',
      });
    });
  });

  it('under maxConcurrent, a second handoff is said at once and its call starts when a permit frees', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const slow = streaming('slow', '10ms a|', { a: 'ok' }, cold);
      const guarded = handoff({ agent: slow, maxConcurrent: 1 });
      const events$ = parallelHandoffsEvents$({ id: 'triage' }, [
        [guarded, 'one'],
        [guarded, 'two'],
      ]).pipe(map(brief));
      expectObservable(events$).toBe('(abcdef) 2ms g (hij) 5ms k (lmn|)', {
        a: 'run-start@0 parallel-handoffs',
        b: 'run-start@0 handoff',
        c: 'handoff@0 triage>slow',
        d: 'call-start@0 slow',
        e: 'run-start@0 handoff',
        f: 'handoff@0 triage>slow',
        g: 'text-delta@10 slow:ok',
        h: 'call-end@11 slow',
        i: 'run-end@11 ',
        j: 'call-start@11 slow',
        k: 'text-delta@21 slow:ok',
        l: 'call-end@22 slow',
        m: 'run-end@22 ',
        n: 'run-end@22 ',
      });
    });
  });

  it('reducing the events gives the Promise form\'s outcome', async () => {
    const target = handoff({ agent: defineAgent('billing', () => from(['a', 'b'])) });
    const outcome = await target.execute({ id: 'triage' }, { input: 'x' });
    const events = await eventsOf(target.events$({ id: 'triage' }, { input: 'x' }));
    expect(rootEnd(events)).toMatchObject({ success: outcome.success, output: outcome.output });
    expect(callsOf(viewOf(events))).toEqual([{ agentId: 'billing', text: outcome.output }]);
  });

  it('execute$ takes the run only: a signal is refused (unsubscribe instead)', () => {
    expect(() => handoff({ agent: agent('billing') }).execute$({ id: 't' }, { input: 'x' }, { signal: new AbortController().signal } as never)).toThrow(
      /Handoff execute options: signal is not a known option/,
    );
  });
});

describe('run events of HandoffChain', () => {
  const chainOf = (...agents: Agent[]): HandoffChain => agents.reduce((builder, agent) => builder.add(agent), HandoffChain.builder()).build();

  it('says a handoff node per step, each with its handoff event and call, deltas as they come, on virtual time', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const chain = chainOf(
        defineAgent('intake', async () => 'ok'),
        streaming('billing', '10ms a|', { a: 'billed' }, cold),
        streaming('audit', '10ms a|', { a: 'audited' }, cold),
      );
      const events$ = chain.events$(new DefaultHandoff(), HandoffContext.of('invoice-42')).pipe(map((event) => brief(checked([event])[0] as RunEvent)));
      expectObservable(events$).toBe('(abcd) 4ms e (fghij) 3ms k (lmn|)', {
        a: 'run-start@0 chain',
        b: 'run-start@0 handoff',
        c: 'handoff@0 intake>billing',
        d: 'call-start@0 billing',
        e: 'text-delta@10 billing:billed',
        f: 'call-end@11 billing',
        g: 'run-end@11 ',
        h: 'run-start@11 handoff',
        i: 'handoff@11 billing>audit',
        j: 'call-start@11 audit',
        k: 'text-delta@21 audit:audited',
        l: 'call-end@22 audit',
        m: 'run-end@22 ',
        n: 'run-end@22 ',
      });
    });
  });

  it('reducing the events gives the Promise form\'s results: the last output, every call\'s text', async () => {
    const chain = chainOf(
      defineAgent('intake', async () => 'ok'),
      defineAgent('billing', () => from(['bil', 'led'])),
      defineAgent('audit', (input) => from(['audited ', input.slice(0, 7)])),
    );
    const context = HandoffContext.of('invoice-42', { amount: 10 });
    const results = await chain.execute(new DefaultHandoff(), context);
    const events = await eventsOf(chain.events$(new DefaultHandoff(), context));
    expect(rootEnd(events)).toMatchObject({ success: true, output: results.at(-1)?.output });
    expect(callsOf(viewOf(events))).toEqual(results.map((result: HandoffResult) => ({ agentId: result.agentId, text: result.output })));
    const stepped = await eventsOf(observeRun('outer', 'x', (run) => chain.steps$(new DefaultHandoff(), context, { run })));
    expect(stepped.filter((event) => event.type === 'run-start').map((event) => event.type === 'run-start' && event.name)).toEqual(['outer', 'chain', 'handoff', 'handoff']);
  });

  it('a failing step ends the chain node with that step\'s error', async () => {
    const chain = chainOf(
      defineAgent('intake', async () => 'ok'),
      defineAgent('billing', async () => {
        throw new Error('ledger offline');
      }),
      defineAgent('audit', async () => 'never'),
    );
    const results = await chain.execute(new DefaultHandoff(), HandoffContext.of('t'));
    const events = await eventsOf(chain.events$(new DefaultHandoff(), HandoffContext.of('t')));
    expect(events.filter((event) => event.type === 'handoff')).toHaveLength(1);
    expect(rootEnd(events)).toMatchObject({ success: false, error: { name: 'AgentError', message: results.at(-1)?.error?.message } });
  });

  it('inside an agent that passes its ChatOptions.run on, the chain nests under the agent\'s call', async () => {
    const chain = chainOf(defineAgent('intake', async () => 'ok'), defineAgent('billing', async () => 'billed'));
    const desk = defineAgent('desk', (_input, { run }) => chain.execute$(new DefaultHandoff(), HandoffContext.of('t'), { run }).pipe(map((results) => results.at(-1)?.output ?? '')));
    const events = await eventsOf(observeRun('support', 'x', (run) => invoke$(desk, 'x', { run })));
    const deskCall = events.find((event) => event.type === 'call-start' && event.agentId === 'desk');
    const chainNode = events.find((event) => event.type === 'run-start' && event.name === 'chain');
    expect(chainNode?.parentCallId).toBe(deskCall?.callId);
    expect(rootEnd(events)).toMatchObject({ success: true, output: 'billed' });
  });

  it('unsubscribing from events$ aborts the running step', () => {
    const signals: AbortSignal[] = [];
    const chain = chainOf(defineAgent('intake', async () => 'ok'), defineAgent('billing', (_input, { signal }) => (signals.push(signal), NEVER)));
    const subscription = chain.events$(new DefaultHandoff(), HandoffContext.of('t')).subscribe();
    expect(signals).toHaveLength(1);
    subscription.unsubscribe();
    expect(signals[0]?.aborted).toBe(true);
  });
});

describe('run events of ConditionalHandoff', () => {
  const refunds = defineAgent('refunds', () => from(['re', 'funded']));
  const support = defineAgent('support', async () => 'answered');
  const router = new ConditionalHandoff().when((context) => context.payload.kind === 'refund', refunds);

  it('says the chosen route\'s handoff node, and reducing gives the Promise form\'s result', async () => {
    const context = HandoffContext.of('t-9', { kind: 'refund' });
    const result = await router.otherwise(support).execute(new DefaultHandoff(), { id: 'triage' }, context);
    const events = await eventsOf(router.otherwise(support).events$(new DefaultHandoff(), { id: 'triage' }, context));
    expect(events.map((event) => event.type)).toEqual(['run-start', 'run-start', 'handoff', 'call-start', 'text-delta', 'text-delta', 'call-end', 'run-end', 'run-end']);
    expect(events[0]).toMatchObject({ name: 'route', input: 't-9' });
    expect(events[2]).toMatchObject({ from: 'triage', to: 'refunds', taskId: 't-9' });
    expect(rootEnd(events)).toMatchObject({ success: true, output: result.output });
    expect(callsOf(viewOf(events))).toEqual([{ agentId: 'refunds', text: result.output }]);
  });

  it('no matching route ends the run with the HandoffRoutingError serialised, and no handoff', async () => {
    const events = await eventsOf(router.events$(new DefaultHandoff(), { id: 'triage' }, HandoffContext.of('t-9', { kind: 'question' })));
    expect(events.map((event) => event.type)).toEqual(['run-start', 'run-end']);
    expect(rootEnd(events)).toMatchObject({ success: false, error: { name: 'HandoffRoutingError', code: 'HANDOFF_NO_ROUTE' } });
  });

  it('unsubscribing from events$ aborts the chosen receiver', () => {
    const signals: AbortSignal[] = [];
    const hang = new ConditionalHandoff().otherwise(defineAgent('support', (_input, { signal }) => (signals.push(signal), NEVER)));
    const subscription = hang.events$(new DefaultHandoff(), { id: 'triage' }, HandoffContext.of('t')).subscribe();
    subscription.unsubscribe();
    expect(signals).toHaveLength(1);
    expect(signals[0]?.aborted).toBe(true);
  });
});

describe('run events of a strategy of your own that gives its result and never completes', () => {
  /**
   * Gives a successful result 5 ms after it is subscribed, then stays subscribed; `open` holds the receivers
   * it is still subscribed for. `traced`: it reports its own `handoff` node into the run with `traceResult`.
   */
  const lingering = (open: Set<string>, traced: boolean): HandoffStrategy => {
    const strategy: HandoffStrategy = {
      execute$: (from, to, context, options) => {
        const result: HandoffResult = { success: true, agentId: to.id, input: '', output: `${to.id}-out`, startedAt: 0, durationMs: 5, fromAgentId: from.id, toAgentId: to.id, taskId: context.taskId, context };
        const body = () =>
          defer(() => {
            open.add(to.id);
            return timer(5).pipe(
              map(() => result),
              concatWith(NEVER),
              finalize(() => open.delete(to.id)),
            );
          });
        return traced ? traceResult(options?.run, 'handoff', context.taskId, body, (given) => ({ success: given.success, output: given.output })) : body();
      },
      execute: (from, to, context, options) => lastValue(strategy.execute$(from, to, context, options)),
    };
    return strategy;
  };
  /** `brief`, with a run-end's output (a run-end names no node). */
  const said = (event: RunEvent): string => `${brief(checked([event])[0] as RunEvent)}${event.type === 'run-end' ? (event.output ?? '') : ''}`;
  const billing = defineAgent('billing', async () => 'unused');
  const audit = defineAgent('audit', async () => 'unused');

  it('a chain goes on at each step\'s first result and stops the step; the chain node ends with the last result', () => {
    const open = new Set<string>();
    testScheduler().run(({ expectObservable }) => {
      const chain = HandoffChain.builder().from({ id: 'intake' }).add(billing).add(audit).build();
      expectObservable(chain.events$(lingering(open, false), HandoffContext.of('t')).pipe(map(said))).toBe('a 9ms (b|)', {
        a: 'run-start@0 chain',
        b: 'run-end@10 audit-out',
      });
    });
    expect([...open]).toEqual([]);
  });

  it('a chain step reporting its node with traceResult: the node ends with its first result, then the next step starts', () => {
    const open = new Set<string>();
    testScheduler().run(({ expectObservable }) => {
      const chain = HandoffChain.builder().from({ id: 'intake' }).add(billing).add(audit).build();
      expectObservable(chain.events$(lingering(open, true), HandoffContext.of('t')).pipe(map(said))).toBe('(ab) 1ms (cd) 1ms (ef|)', {
        a: 'run-start@0 chain',
        b: 'run-start@0 handoff',
        c: 'run-end@5 billing-out',
        d: 'run-start@5 handoff',
        e: 'run-end@10 audit-out',
        f: 'run-end@10 audit-out',
      });
    });
    expect([...open]).toEqual([]);
  });

  it.each([
    ['reports no node of its own', false, 'a 4ms (b|)', { a: 'run-start@0 route', b: 'run-end@5 billing-out' }],
    ['reports its node with traceResult', true, '(ab) 1ms (cd|)', { a: 'run-start@0 route', b: 'run-start@0 handoff', c: 'run-end@5 billing-out', d: 'run-end@5 billing-out' }],
  ])('a router passes on the first result of a strategy that %s, and stops it', (_, traced, marbles, values) => {
    const open = new Set<string>();
    testScheduler().run(({ expectObservable }) => {
      const router = new ConditionalHandoff().otherwise(billing);
      expectObservable(router.events$(lingering(open, traced), { id: 'intake' }, HandoffContext.of('t')).pipe(map(said))).toBe(marbles, values);
    });
    expect([...open]).toEqual([]);
  });
});

describe('run events of parallelHandoffs', () => {
  const billing = defineAgent('billing', () => from(['charged ', 'once']));
  const refunds = defineAgent('refunds', async () => 'refund started');

  it('says one handoff node per task under the fan-out, and reducing gives the Promise form\'s outcomes', async () => {
    const tasks = [
      [billing, 'Why was I charged twice?'],
      [refunds, 'Refund order #42'],
    ] as const;
    const outcomes = await parallelHandoffs({ id: 'triage' }, tasks);
    const events = await eventsOf(parallelHandoffsEvents$({ id: 'triage' }, tasks));
    const root = events[0];
    expect(root).toMatchObject({ type: 'run-start', name: 'parallel-handoffs', input: 'Why was I charged twice?\nRefund order #42' });
    const nodes = events.filter((event) => event.type === 'run-start' && event.name === 'handoff');
    expect(nodes.map((node) => node.parentCallId)).toEqual([root?.callId, root?.callId]);
    expect(events.filter((event) => event.type === 'handoff').map((event) => event.type === 'handoff' && event.to)).toEqual(['billing', 'refunds']);
    expect(rootEnd(events)).toMatchObject({ success: true });
    expect(callsOf(viewOf(events))).toEqual(outcomes.map((outcome) => ({ agentId: outcome.handedOffTo, text: outcome.output })));
  });

  it('with a run option, the fan-out is a node of that run; a failed task fails it with its typed error', async () => {
    const tasks = [
      [billing, 'x'],
      [defineAgent('triage', async () => 'me'), 'back to the sender'],
    ] as const;
    const events = await eventsOf(observeRun('outer', 'x', (run) => parallelHandoffs$({ id: 'triage' }, tasks, { run })));
    const fanOut = events.find((event) => event.type === 'run-start' && event.name === 'parallel-handoffs');
    expect(fanOut?.parentCallId).toBe(events[0]?.callId);
    const fanOutEnd = events.find((event) => event.type === 'run-end' && event.callId === fanOut?.callId);
    expect(fanOutEnd).toMatchObject({ success: false, error: { name: 'HandoffCycleError' } });
  });

  it('unsubscribing from events$ aborts every running target', () => {
    const signals: AbortSignal[] = [];
    const hang = (id: string): Agent => defineAgent(id, (_input, { signal }) => (signals.push(signal), NEVER));
    const subscription = parallelHandoffsEvents$({ id: 'triage' }, [
      [hang('a'), 'one'],
      [hang('b'), 'two'],
    ]).subscribe();
    expect(signals).toHaveLength(2);
    subscription.unsubscribe();
    expect(signals.every((signal) => signal.aborted)).toBe(true);
  });
});

describe('run events across the package', () => {
  it('a routing agent as a step of a chain shows its routed call under its own call, under the step\'s handoff', async () => {
    const billing = defineAgent('billing', () => from(['bil', 'led']));
    const assistant = routingAgent({ id: 'assistant', handoffs: [handoff({ agent: billing, condition: () => true })] });
    const chain = HandoffChain.builder().add(defineAgent('intake', async () => 'ok')).add(assistant).build();
    const events = await eventsOf(chain.events$(new DefaultHandoff(), HandoffContext.of('t')));
    const starts = events.filter((event) => event.type === 'run-start' || event.type === 'call-start');
    expect(starts.map((event) => (event.type === 'run-start' ? `run:${event.name}` : `call:${event.agentId}`))).toEqual(['run:chain', 'run:handoff', 'call:assistant', 'run:handoff', 'call:billing']);
    for (let index = 1; index < starts.length; index += 1) expect(starts[index]?.parentCallId).toBe(starts[index - 1]?.callId);
    expect(rootEnd(events)).toMatchObject({ success: true, output: 'billed' });
  });

  it('a handoff operator given a run reports each handoff as a node of it', async () => {
    const billing = defineAgent('billing', async (input) => `billed ${input.length}`);
    const events = await eventsOf(
      observeRun('operators', 'x', (run) => from([HandoffContext.of('a'), HandoffContext.of('b')]).pipe(handoffTo(billing, { run }), toArray(), map((results) => results.map((result) => result.taskId).join()))),
    );
    expect(events.filter((event) => event.type === 'handoff').map((event) => event.type === 'handoff' && event.taskId)).toEqual(['a', 'b']);
    expect(rootEnd(events)).toMatchObject({ success: true, output: 'a,b' });
  });

  it('a consumer that takes the one result and leaves (first()) sees every node completed, none cancelled', async () => {
    const billing = defineAgent('billing', async () => 'paid');
    const strategy = new DefaultHandoff();
    const results: ((run: RunContext) => Observable<unknown>)[] = [
      (run) => handoff({ agent: billing }).execute$({ id: 'intake' }, { input: 'invoice?' }, { run }),
      (run) => strategy.execute$({ id: 'intake' }, billing, HandoffContext.of('t'), { run }),
      (run) => new ConditionalHandoff().otherwise(billing).execute$(strategy, { id: 'intake' }, HandoffContext.of('t'), { run }),
      (run) => HandoffChain.builder().from().add(billing).build().execute$(strategy, HandoffContext.of('t'), { run }),
      (run) => parallelHandoffs$({ id: 'intake' }, [[billing, 'invoice?']], { run }),
    ];
    for (const result of results) {
      const view = viewOf(await eventsOf(observeRun('app', 'x', (run) => result(run).pipe(first()))));
      expect(view.nodes.map((node) => node.status)).not.toContain('cancelled');
      expect(view.nodes.every((node) => node.status === 'completed')).toBe(true);
    }
  });

  it('events$ refuses a run option: its events are a run of their own', () => {
    const billing = defineAgent('billing', async () => 'ok');
    const run = { runId: 'r', callId: null, parentCallId: null, scheduler: { now: () => 0, schedule: () => undefined }, emit: () => undefined } as never;
    expect(() => new DefaultHandoff().events$({ id: 'a' }, billing, HandoffContext.of('t'), { run } as never)).toThrow(/DefaultHandoff events options: run is not an option of events\$/);
    expect(() => HandoffChain.builder().add(billing).build().events$(new DefaultHandoff(), HandoffContext.of('t'), { run } as never)).toThrow(/HandoffChain events options: run/);
    expect(() => new ConditionalHandoff().events$(new DefaultHandoff(), { id: 'a' }, HandoffContext.of('t'), { run } as never)).toThrow(/ConditionalHandoff events options: run/);
    expect(() => parallelHandoffsEvents$({ id: 'a' }, [[billing, 'x']], { run } as never)).toThrow(/parallelHandoffs events options: run/);
    expect(() => routingAgent({ id: 'assistant', handoffs: [billing] }).events$('x', { run } as never)).toThrow(/routing agent "assistant" events options: run/);
  });

  it('events$ refuses options that are not an object with a ConfigError, as execute$ does', () => {
    const billing = defineAgent('billing', async () => 'ok');
    expect(() => handoff({ agent: billing }).events$({ id: 'a' }, { input: 'x' }, null as never)).toThrow('Handoff events options: value must be an object, got null');
    expect(() => new DefaultHandoff().events$({ id: 'a' }, billing, HandoffContext.of('t'), 'fast' as never)).toThrow('DefaultHandoff events options: value must be an object, got "fast"');
    expect(() => HandoffChain.builder().add(billing).build().events$(new DefaultHandoff(), HandoffContext.of('t'), null as never)).toThrow(ConfigError);
    expect(() => new ConditionalHandoff().events$(new DefaultHandoff(), { id: 'a' }, HandoffContext.of('t'), 5 as never)).toThrow(ConfigError);
    expect(() => parallelHandoffsEvents$({ id: 'a' }, [[billing, 'x']], null as never)).toThrow(ConfigError);
    expect(() => routingAgent({ id: 'assistant', handoffs: [billing] }).events$('x', null as never)).toThrow(ConfigError);
  });
});
