import { SpanStatusCode } from '@opentelemetry/api';
import { ChoreographyEngine, ChoreographySpec } from '@rxagents/choreography';
import { defineAgent, invoke$, observeRun } from '@rxagents/core';
import { DefaultHandoff, HandoffChain, HandoffContext } from '@rxagents/handoff';
import { Patterns } from '@rxagents/patterns';
import { from } from 'rxjs';
import { spanNamed, traced, treeOf } from './support/tracing';

const answering = (id: string, reply: string) => defineAgent(id, async () => reply);

describe('traceToOpenTelemetry: the span tree of every primitive', () => {
  it('an agent call is an invoke_agent span under the run, with the GenAI attributes and the events passed on unchanged', async () => {
    const writer = defineAgent('writer', () => from(['Once ', 'upon']));
    const run$ = observeRun('story', 'Tell a story', (run) => invoke$(writer, 'Tell a story', { run }));
    const { events, spans } = await traced(run$);
    expect(events.map((event) => event.type)).toEqual(['run-start', 'call-start', 'text-delta', 'text-delta', 'call-end', 'run-end']);
    expect(treeOf(spans)).toEqual(['invoke_workflow story', '  invoke_agent writer']);
    const call = spanNamed(spans, 'invoke_agent writer');
    expect(call.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': 'writer',
      'gen_ai.agent.name': 'writer',
      'gen_ai.conversation.id': events[0]!.runId,
      'rxagents.node.id': events[1]!.callId,
    });
    expect(spanNamed(spans, 'invoke_workflow story').attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_workflow', 'gen_ai.workflow.name': 'story' });
    expect(call.status.code).toBe(SpanStatusCode.UNSET);
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
  });

  it('a handoff chain: a workflow per step under the chain, the handoff as a span event of its step', async () => {
    const chain = HandoffChain.builder().from({ id: 'gateway' }).add(answering('extractor', 'fields')).add(answering('writer', 'letter')).build();
    const { spans } = await traced(chain.events$(new DefaultHandoff(), HandoffContext.of('invoice-42', { document: '...' })));
    expect(treeOf(spans)).toEqual(['invoke_workflow chain', '  invoke_workflow handoff', '    invoke_agent extractor', '  invoke_workflow handoff', '    invoke_agent writer']);
    const handoffs = spans.filter((span) => span.name === 'invoke_workflow handoff').flatMap((span) => span.events.filter((event) => event.name === 'handoff').map((event) => event.attributes));
    expect(handoffs).toEqual([
      { 'rxagents.handoff.from': 'gateway', 'rxagents.handoff.to': 'extractor', 'rxagents.handoff.task_id': 'invoice-42' },
      { 'rxagents.handoff.from': 'extractor', 'rxagents.handoff.to': 'writer', 'rxagents.handoff.task_id': 'invoice-42' },
    ]);
  });

  it('a choreography: its agent calls under it, choreography events, steps and the termination as span events', async () => {
    const spec = ChoreographySpec.builder('article')
      .initialEvent('start')
      .interaction('research', 'system', 'researcher', 'start', 'researched', 'Collect sources')
      .interaction('draft', 'researcher', 'writer', 'researched', null, 'Write a draft')
      .build();
    const engine = new ChoreographyEngine({ spec, agents: { researcher: answering('researcher', 'three sources'), writer: answering('writer', 'a draft') } });
    const { spans } = await traced(engine.events$({ input: 'agent coordination' }));
    expect(treeOf(spans)).toEqual(['invoke_workflow choreography', '  invoke_agent researcher', '  invoke_agent writer']);
    const root = spanNamed(spans, 'invoke_workflow choreography');
    expect(root.events.map((event) => event.name)).toEqual(['choreography-event', 'step', 'choreography-event', 'step', 'termination']);
    expect(root.events[1]!.attributes).toEqual({ 'rxagents.step.interaction_id': 'research', 'rxagents.step.agent_id': 'researcher', 'rxagents.step.success': true, 'rxagents.step.duration_ms': expect.any(Number) });
    expect(root.events.at(-1)!.attributes).toMatchObject({ 'rxagents.termination.decision': 'completed' });
  });

  it('a debate: a call span per turn, messages and rounds as span events (no content by default)', async () => {
    const debate = Patterns.debate({ agents: [answering('optimist', 'Ship it.'), answering('skeptic', 'Wait.')], maxRounds: 2 });
    const { spans } = await traced(debate.events$('Ship on Friday?'));
    expect(treeOf(spans)).toEqual(['invoke_workflow debate', '  invoke_agent optimist', '  invoke_agent skeptic', '  invoke_agent optimist', '  invoke_agent skeptic']);
    const root = spanNamed(spans, 'invoke_workflow debate');
    const names = root.events.map((event) => event.name);
    expect(names.filter((name) => name === 'message')).toHaveLength(4);
    expect(root.events.filter((event) => event.name === 'round-end').map((event) => event.attributes)).toEqual([{ 'rxagents.round': 1 }, { 'rxagents.round': 2 }]);
    expect(root.events.find((event) => event.name === 'message')!.attributes).toEqual({ 'rxagents.message.speaker': 'optimist' });
    expect(names).toContain('termination');
    for (const span of spans) expect(Object.keys(span.attributes).filter((key) => key.includes('messages'))).toEqual([]);
  });

  it('a supervisor: the lead and the worker it delegates to, under the supervisor run', async () => {
    let asked = 0;
    const lead = defineAgent('lead', async () => (asked++ === 0 ? 'DELEGATE researcher: find otters' : 'FINAL: otters are great'));
    const { spans } = await traced(Patterns.supervisor({ supervisor: lead, workers: [answering('researcher', 'otters hold hands')], maxSteps: 5 }).events$('Research otters'));
    expect(treeOf(spans)).toEqual(['invoke_workflow supervisor', '  invoke_agent lead', '  invoke_agent researcher', '  invoke_agent lead']);
  });

  it('a debate inside a supervisor inside a handoff nests as deep as the runs do', async () => {
    const panel = Patterns.debate({ agents: [answering('optimist', 'Adopt it.'), answering('skeptic', 'Carefully.')], maxRounds: 1 }).asAgent('panel');
    let asked = 0;
    const lead = defineAgent('lead', async () => (asked++ === 0 ? 'DELEGATE panel: Should we adopt RxJS 8?' : 'FINAL: adopt, carefully'));
    const office = Patterns.supervisor({ supervisor: lead, workers: [panel] }).asAgent('office');
    const { spans } = await traced(new DefaultHandoff({ prompt: () => 'Decide on the upgrade' }).events$({ id: 'intake' }, office, HandoffContext.of('upgrade-1', {})));
    expect(treeOf(spans)).toEqual([
      'invoke_workflow handoff',
      '  invoke_agent office',
      '    invoke_workflow supervisor',
      '      invoke_agent lead',
      '      invoke_agent panel',
      '        invoke_workflow debate',
      '          invoke_agent optimist',
      '          invoke_agent skeptic',
      '      invoke_agent lead',
    ]);
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
    expect(new Set(spans.map((span) => span.attributes['gen_ai.conversation.id'])).size).toBe(1);
  });
});
