import { DefaultHandoff, ConditionalHandoff, HandoffChain, HandoffContext } from '@rxagents/handoff';
import { Patterns } from '@rxagents/patterns';
import { scriptedAgent } from '@rxagents/testing';
import type { Scene } from '../Scene';

/**
 * One request through three primitives, with the public API only: a router picks the team, a chain
 * works on the request from its context alone, and a debate settles what to answer.
 */
export const scene: Scene = {
  name: 'together',
  title: 'route a request, run a chain on it, then debate the answer (ConditionalHandoff, HandoffChain.from(), Patterns.debate)',
  async run() {
    const strategy = new DefaultHandoff({ timeout: 5_000 });
    const request = HandoffContext.of('ticket-7', { text: 'I was charged twice for invoice 42', invoiceId: '42' });

    // 1) Route: invoices go to billing, everything else to support.
    const billing = scriptedAgent('billing', { reply: 'billing: duplicate charge on invoice 42 confirmed', delay: 100 });
    const support = scriptedAgent('support', { reply: 'support: looking into it', delay: 100 });
    const router = new ConditionalHandoff().when((context) => 'invoiceId' in context.payload, billing).otherwise(support);
    const routed = await router.execute(strategy, { id: 'intake' }, request);
    console.log(`1) routed ${routed.taskId} to ${routed.toAgentId}: ${routed.success ? routed.output : routed.error.message}`);

    // 2) Chain: every agent works; the chain starts from the request's context, no source agent needed.
    const extractor = scriptedAgent('extractor', { reply: 'invoice=42; charged=2x 120 EUR', delay: 80 });
    const drafter = scriptedAgent('drafter', { chunks: ['We will refund ', 'one charge of 120 EUR.'], delay: 60, interval: 40 });
    const chain = HandoffChain.builder().from({ id: routed.toAgentId }).add(extractor).add(drafter).build();
    const steps = await chain.execute(strategy, routed.context);
    for (const step of steps) console.log(`2) ${step.fromAgentId} -> ${step.toAgentId} (task ${step.taskId}): ${step.success ? step.output : step.error.message}`);
    const draft = steps.at(-1)?.output ?? '';

    // 3) Debate: two reviewers argue over the draft for two rounds.
    const careful = scriptedAgent('careful', { reply: 'Refund now, apologise for the double charge.', delay: 50 });
    const thrifty = scriptedAgent('thrifty', { reply: 'Refund once the bank confirms the duplicate.', delay: 50 });
    const verdict = await Patterns.debate({ agents: [careful, thrifty], maxRounds: 2 }).execute(`Should we send this reply? "${draft}"`);
    console.log(`3) debate ${verdict.status} after ${verdict.iterations} rounds; last word: ${verdict.output}`);
  },
};
