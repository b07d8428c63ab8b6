import { randomUUID } from 'node:crypto';
import { type Agent, defineAgent, invoke, type RunEvent } from '@rxagents/core';
import { ChoreographyEngine, ChoreographySpec } from '@rxagents/choreography';
import { ConditionalHandoff, DefaultHandoff, handoff, HandoffChain, HandoffContext, parallelHandoffs, routingAgent } from '@rxagents/handoff';
import { Patterns } from '@rxagents/patterns';
import { lastValueFrom, Observable, toArray } from 'rxjs';
import { remoteAgent, serveAgent, type ServedAgent } from '../src';
import { describeRedis } from './support/describeRedis';

jest.setTimeout(30_000);

// Every coordination primitive takes remote agents as it takes local ones: each agent below runs behind
// serveAgent and is reached through remoteAgent, over a real redis-server.
describeRedis('coordination primitives with remote agents', (server) => {
  let prefix: string;
  const workers: ServedAgent[] = [];
  beforeEach(() => {
    prefix = `p-${randomUUID()}`;
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.close()));
  });

  /** Serves `agent` on Redis and returns the remote agent that reaches it. */
  const remote = (agent: Agent): Agent => {
    workers.push(serveAgent(server().client(), agent, { prefix, claimIdleMs: 1_000, leaseCheckMs: 100 }));
    return remoteAgent(server().client(), agent.id, { prefix });
  };
  const words = (id: string, ...chunks: string[]): Agent => defineAgent(id, () => new Observable<string>((s) => (chunks.forEach((c) => s.next(c)), s.complete())));

  it('a handoff, a chain and a conditional route', async () => {
    const intake = remote(defineAgent('intake', async () => 'intake'));
    const extractor = remote(defineAgent('extractor', async (input) => `extracted(${input.includes('Invoice') ? 'invoice' : '?'})`));
    const writer = remote(defineAgent('writer', async (input) => `wrote from ${input.includes('extracted(invoice)') ? 'extractor' : '?'}`));
    const strategy = new DefaultHandoff();
    const start = HandoffContext.of('invoice-42', { document: 'Invoice text' });

    const one = await strategy.execute(intake, extractor, start);
    expect(one.success && one.output).toBe('extracted(invoice)');

    const steps = await HandoffChain.builder().add(intake).add(extractor).add(writer).build().execute(strategy, start);
    expect(steps.map((step) => (step.success ? step.output : step.error.message))).toEqual(['extracted(invoice)', 'wrote from extractor']);

    const billing = remote(defineAgent('billing', async () => 'paid'));
    const support = remote(defineAgent('support', async () => 'fixed'));
    const route = new ConditionalHandoff().when((context) => 'invoiceId' in context.payload, billing).otherwise(support);
    const routed = await route.execute(strategy, intake, HandoffContext.of('ticket-7', { invoiceId: '42' }));
    expect([routed.toAgentId, routed.success && routed.output]).toEqual(['billing', 'paid']);
  });

  it('parallelHandoffs and a routingAgent', async () => {
    const triage = remote(defineAgent('triage', async () => ''));
    const billing = remote(defineAgent('billing', async () => 'charged once'));
    const refunds = remote(defineAgent('refunds', async () => 'refund started'));
    const results = await parallelHandoffs(triage, [
      [billing, 'Why was I charged twice?'],
      [refunds, 'Refund order #42'],
    ]);
    expect(results.map((result) => (result.success ? `${result.handedOffTo}: ${result.output}` : result.handedOffTo))).toEqual(['billing: charged once', 'refunds: refund started']);

    const assistant = routingAgent({ id: 'assistant', instructions: 'Help', handoffs: [handoff({ agent: billing, description: 'For billing', condition: () => true })] });
    expect(await invoke(assistant, 'About my invoice')).toBe('charged once');
  });

  it('a choreography', async () => {
    const spec = ChoreographySpec.builder('article')
      .initialEvent('topic')
      .interaction('draft', 'editor', 'writer', 'topic', 'drafted', 'Write about it')
      .interaction('review', 'writer', 'reviewer', 'drafted', 'reviewed', 'Review it')
      .build();
    const result = await ChoreographyEngine.builder()
      .spec(spec)
      .agent('editor', remote(defineAgent('editor', async () => 'go')))
      .agent('writer', remote(defineAgent('writer', async () => 'a draft')))
      .agent('reviewer', remote(defineAgent('reviewer', async () => 'approved')))
      .logger({ warn: () => undefined })
      .build()
      .execute();
    expect(result.success).toBe(true);
    expect(result.stepResults.map((step) => (step.success ? `${step.interactionId}=${step.output}` : step.interactionId))).toEqual(['draft=a draft', 'review=approved']);
  });

  it('voting, parallel work, a sequence and a supervisor', async () => {
    const voters = ['v1', 'v2', 'v3'].map((id, i) => remote(defineAgent(id, async () => (i < 2 ? 'yes' : 'no'))));
    const vote = await Patterns.voting({ agents: voters }).execute('Ship it?');
    expect(vote.status).toBe('completed');
    expect(vote.output).toBe('yes');

    const reviewers = [remote(defineAgent('legal', async () => 'legal ok')), remote(defineAgent('security', async () => 'security ok'))];
    const review = await Patterns.parallel({ agents: reviewers }).execute('Review the launch');
    expect(review.results.map((result) => (result.success ? result.output : result.agentId)).sort()).toEqual(['legal ok', 'security ok']);

    const draft = remote(defineAgent('draft', async (input) => `a draft about ${input}`));
    const edit = remote(defineAgent('edit', async (input) => input.toUpperCase()));
    expect((await Patterns.sequence({ agents: [draft, edit] }).execute('otters')).output).toBe('A DRAFT ABOUT OTTERS');

    let step = 0;
    const lead = remote(defineAgent('lead', async () => (step++ === 0 ? 'DELEGATE researcher: find Q3 revenue' : 'FINAL: revenue grew 12%')));
    const researcher = remote(defineAgent('researcher', async () => 'Q3 revenue +12%'));
    const supervised = await Patterns.supervisor({ supervisor: lead, workers: [researcher], maxSteps: 5 }).execute('Summarise Q3');
    expect([supervised.output, supervised.state.steps.length]).toEqual(['revenue grew 12%', 1]);
  });

  it("a chain's run events carry the remote agent's deltas as it streams them", async () => {
    const intake = remote(defineAgent('intake', async () => 'intake'));
    const writer = remote(words('writer', 'Once ', 'upon ', 'a time'));
    const chain = HandoffChain.builder().add(intake).add(writer).build();
    const events: RunEvent[] = await lastValueFrom(chain.events$(new DefaultHandoff(), HandoffContext.of('story', {})).pipe(toArray()));
    const deltas = events.filter((event) => event.type === 'text-delta');
    expect(deltas.map((event) => event.delta)).toEqual(['Once ', 'upon ', 'a time']);
    expect(events.filter((event) => event.type === 'handoff').map((event) => `${event.from}->${event.to}`)).toEqual(['intake->writer']);
  });
});
