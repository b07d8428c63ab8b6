import { defineAgent, invoke$, observeRun, traceRun, type RunEvent } from '@rxagents/core';
import { ChoreographyEngine, ChoreographySpec, type EventBus, executeChoreography$ } from '@rxagents/choreography';
import { failingAgent, hangingAgent, scriptedAgent } from '@rxagents/testing';
import { from, lastValueFrom, map, of, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { articleSpec, brief, checked, silent } from './fixtures';

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));


describe('ChoreographyEngine.events$: the run as RunEvents', () => {
  it('says, in order: run-start, each published event, each call with its deltas as the agent emits them, each step, the termination, run-end', () => {
    newScheduler().run(({ cold, expectObservable }) => {
      const researcher = defineAgent('researcher', () => cold('100ms a 99ms b 99ms c|', { a: 'tok0 ', b: 'tok1 ', c: 'tok2 ' }));
      const writer = defineAgent('writer', () => cold('10ms (a|)', { a: 'draft' }));
      const engine = new ChoreographyEngine({ spec: articleSpec(), agents: { researcher, writer }, logger: silent });
      expectObservable(engine.events$({ input: 'rx' }).pipe(map(brief))).toBe('(abc) 95ms d 99ms e 99ms f (ghij) 4ms (klmno|)', {
        a: 'run-start@0 choreography',
        b: 'choreography-event@0 start<null',
        c: 'call-start@0 researcher',
        d: 'text-delta@100 researcher:tok0 ',
        e: 'text-delta@200 researcher:tok1 ',
        f: 'text-delta@300 researcher:tok2 ',
        g: 'call-end@301 researcher',
        h: 'step@301 researcher',
        i: 'choreography-event@301 researched<researcher',
        j: 'call-start@301 writer',
        k: 'text-delta@311 writer:draft',
        l: 'call-end@311 writer',
        m: 'step@311 writer',
        n: 'termination@311 :completed',
        o: 'run-end@311 ',
      });
    });
  });

  it('puts the calls under the choreography node and the node at the root; every event is valid and shares one runId', async () => {
    const engine = new ChoreographyEngine({ spec: articleSpec(), agents: { researcher: scriptedAgent('researcher', 'sources'), writer: scriptedAgent('writer', 'a draft') }, logger: silent });
    const events = checked(await lastValueFrom(engine.events$({ input: 'rx' }).pipe(toArray())));
    const [root] = events;
    expect(root).toMatchObject({ type: 'run-start', name: 'choreography', input: 'rx', parentCallId: null });
    const own = events.filter((event) => event.type === 'choreography-event' || event.type === 'step' || event.type === 'termination' || event.type === 'run-end');
    expect(own.every((event) => event.callId === root?.callId && event.parentCallId === null)).toBe(true);
    const calls = events.filter((event) => event.type === 'call-start');
    expect(calls.map((call) => call.parentCallId)).toEqual([root?.callId, root?.callId]);
    expect(new Set(events.map((event) => event.runId)).size).toBe(1);
    expect(events.find((event) => event.type === 'run-end')).toMatchObject({ success: true, output: 'a draft' });
  });

  it('a step event carries the interaction, the agent, the outcome with its error and the duration', () => {
    newScheduler().run(({ flush }) => {
      const spec = ChoreographySpec.builder('two').initialEvent('go').interaction('ok', 'u', 'fine', 'go', null, 'A').interaction('bad', 'u', 'broken', 'go', null, 'B').build();
      const agents = { fine: scriptedAgent('fine', { reply: 'yes', delay: 5 }), broken: failingAgent('broken', new Error('model down'), { delay: 7 }) };
      const seen: RunEvent[] = [];
      new ChoreographyEngine({ spec, agents, logger: silent }).events$().subscribe((event) => seen.push(event));
      flush();
      const steps = checked(seen).filter((event) => event.type === 'step');
      expect(steps.map(({ interactionId, agentId, success, durationMs, at }) => ({ interactionId, agentId, success, durationMs, at }))).toEqual([
        { interactionId: 'ok', agentId: 'fine', success: true, durationMs: 5, at: 5 },
        { interactionId: 'bad', agentId: 'broken', success: false, durationMs: 7, at: 7 },
      ]);
      expect(steps[1]).toMatchObject({ error: { name: 'AgentError', message: 'Agent "broken" failed: model down' } });
      expect('error' in (steps[0] as object)).toBe(false);
      expect(seen.find((event) => event.type === 'termination')).toMatchObject({ decision: 'completed', reason: 'all 2 interactions ran; failed: bad' });
      expect(seen.at(-1)).toMatchObject({ type: 'run-end', success: false, error: { message: 'Agent "broken" failed: model down' } });
    });
  });
});

describe('termination: how a run ended', () => {
  it('timed-out: the timeout aborted a running agent; its step fails, its call is cancelled, and the pending interactions are named', () => {
    newScheduler().run(({ flush }) => {
      const slow = hangingAgent('researcher');
      const engine = new ChoreographyEngine({ spec: articleSpec(), agents: { researcher: slow, writer: scriptedAgent('writer', 'x') }, timeout: 50, logger: silent });
      const seen: RunEvent[] = [];
      engine.events$().subscribe((event) => seen.push(event));
      flush();
      expect(checked(seen).map(brief).slice(3)).toEqual([
        'step@50 researcher:ChoreographyTimeoutError',
        'termination@50 :timed-out',
        'call-error@50 researcher:AbortError',
        'run-end@50 :ChoreographyTimeoutError',
      ]);
      expect(seen.find((event) => event.type === 'termination')).toMatchObject({
        reason: 'the timeout of 50 ms passed while research ran; aborted; never started: draft (waits for researched)',
      });
      expect(slow.aborted).toBe(true);
    });
  });

  it('deadlocked: the timeout passed with no agent running, the join waiting for an event a failed step never published', () => {
    newScheduler().run(({ flush }) => {
      const spec = ChoreographySpec.builder('join')
        .initialEvent('start')
        .interaction('a', 'u', 'left', 'start', 'leftDone', 'Left')
        .interaction('b', 'u', 'right', 'start', 'rightDone', 'Right')
        .interaction({ id: 'merge', source: 'u', target: 'merger', trigger: ['leftDone', 'rightDone'], emits: null, task: 'Merge' })
        .build();
      const agents = { left: scriptedAgent('left', 'L'), right: failingAgent('right'), merger: scriptedAgent('merger', 'M') };
      const seen: RunEvent[] = [];
      new ChoreographyEngine({ spec, agents, timeout: 30, logger: silent }).events$().subscribe((event) => seen.push(event));
      flush();
      const termination = checked(seen).find((event) => event.type === 'termination');
      expect(termination).toMatchObject({ at: 30, decision: 'deadlocked', reason: 'the timeout of 30 ms passed with no agent running; never started: merge (waits for rightDone)' });
    });
  });

  it('deadlocked, naming the cycle of the spec when there is one', () => {
    newScheduler().run(({ flush }) => {
      const spec = ChoreographySpec.builder('loop')
        .initialEvent('start')
        .interaction('ask', 'x', 'y', 'start', 'asked', 'Ask')
        .interaction('answer', 'y', 'x', 'asked', null, 'Answer')
        .build();
      const seen: RunEvent[] = [];
      new ChoreographyEngine({ spec, agents: { x: scriptedAgent('x', 'X'), y: failingAgent('y') }, timeout: 10, logger: silent }).events$().subscribe((event) => seen.push(event));
      flush();
      expect(checked(seen).find((event) => event.type === 'termination')).toMatchObject({
        decision: 'deadlocked',
        reason: 'the timeout of 10 ms passed with no agent running; never started: answer (waits for asked); the spec has a cycle: x -> y -> x',
      });
    });
  });

  it('deadlocked, when the bus ends while interactions still wait', async () => {
    const bus: EventBus = { events$: of({ name: 'start' }), publish: () => undefined, close: () => undefined };
    const engine = new ChoreographyEngine({ spec: articleSpec(), agents: { researcher: scriptedAgent('researcher', 's'), writer: scriptedAgent('writer', 'w') }, bus, logger: silent });
    const events = checked(await lastValueFrom(engine.events$().pipe(toArray())));
    expect(events.find((event) => event.type === 'termination')).toMatchObject({ decision: 'deadlocked', reason: 'the event bus ended before every interaction ran; never started: draft (waits for researched)' });
    expect(events.at(-1)).toMatchObject({ type: 'run-end', success: true, output: 's' });
  });

  it('completed, for an engine that runs none of the interactions (it only starts the run)', async () => {
    const engine = new ChoreographyEngine({ spec: articleSpec(), remoteAgents: ['researcher', 'writer'], logger: silent });
    const events = checked(await lastValueFrom(engine.events$().pipe(toArray())));
    expect(events.map((event) => event.type)).toEqual(['run-start', 'choreography-event', 'termination', 'run-end']);
    expect(events[2]).toMatchObject({ decision: 'completed', reason: 'this engine runs none of the interactions; it published the initial events' });
  });
});

describe('nesting', () => {
  it('what an interaction\'s agent runs with its ChatOptions.run nests under its call', async () => {
    const helper = defineAgent('helper', () => from(['a', 'b']));
    const researcher = defineAgent('researcher', (input, { run }) => traceRun(run, 'lookup', input, (inner) => invoke$(helper, input, { run: inner })));
    const engine = new ChoreographyEngine({ spec: articleSpec(), agents: { researcher, writer: scriptedAgent('writer', 'w') }, logger: silent });
    const events = checked(await lastValueFrom(engine.events$().pipe(toArray())));
    const researcherCall = events.find((event) => event.type === 'call-start' && event.agentId === 'researcher');
    const lookup = events.find((event) => event.type === 'run-start' && event.name === 'lookup');
    const helperCall = events.find((event) => event.type === 'call-start' && event.agentId === 'helper');
    expect(lookup?.parentCallId).toBe(researcherCall?.callId);
    expect(helperCall?.parentCallId).toBe(lookup?.callId);
    expect(events.filter((event) => event.type === 'text-delta' && event.agentId === 'helper').map((event) => event.type === 'text-delta' && event.delta)).toEqual(['a', 'b']);
  });

  it('a choreography run by an agent that passes its ChatOptions.run on is a choreography node under that agent\'s call', async () => {
    const agents = { researcher: scriptedAgent('researcher', 'sources'), writer: defineAgent('writer', () => from(['dr', 'aft'])) };
    const desk = defineAgent('desk', (input, { run }) => executeChoreography$({ spec: articleSpec(), agents, input, run, logger: silent }).pipe(map((result) => `${result.completedCount} steps`)));
    const events = checked(await lastValueFrom(observeRun('app', 'go', (run) => invoke$(desk, 'go', { run })).pipe(toArray())));
    const deskCall = events.find((event) => event.type === 'call-start' && event.agentId === 'desk');
    const node = events.find((event) => event.type === 'run-start' && event.name === 'choreography');
    expect(node).toMatchObject({ parentCallId: deskCall?.callId, input: 'go' });
    const writerCall = events.find((event) => event.type === 'call-start' && event.agentId === 'writer');
    expect(writerCall?.parentCallId).toBe(node?.callId);
    expect(events.filter((event) => event.type === 'text-delta').map((event) => event.type === 'text-delta' && `${event.agentId}:${event.delta}`)).toEqual(['researcher:sources', 'writer:dr', 'writer:aft', 'desk:2 steps']);
  });

  it('execute({ run }) reports the same node into the given run as execute$ does', async () => {
    const engine = new ChoreographyEngine({ spec: articleSpec(), agents: { researcher: scriptedAgent('researcher', 's'), writer: scriptedAgent('writer', 'w') }, logger: silent });
    const seen = await lastValueFrom(observeRun('app', 'go', (run) => from(engine.execute({ input: 'go', run }))).pipe(toArray()));
    expect(checked(seen).map((event) => `${event.type}${'name' in event ? ` ${event.name}` : ''}`)).toEqual([
      'run-start app',
      'run-start choreography',
      'choreography-event start',
      'call-start',
      'text-delta',
      'call-end',
      'step',
      'choreography-event researched',
      'call-start',
      'text-delta',
      'call-end',
      'step',
      'termination',
      'run-end',
      'run-end',
    ]);
  });
});
