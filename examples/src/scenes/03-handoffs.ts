import { asyncScheduler, lastValueFrom, tap, toArray } from 'rxjs';
import { invoke } from '@rxagents/core';
import { DefaultHandoff, handoff, HandoffChain, HandoffContext, HandoffCycleError, handoffFilters, routingAgent } from '@rxagents/handoff';
import { scriptedAgent } from '@rxagents/testing';
import { liveAgent, liveModelsConfigured, liveToolCallingModel } from '../liveModels';
import type { Scene } from '../Scene';

/** The invoice chain (translator skipped unless German), then a routing agent sending an invoice question to Billing. */
export const scene: Scene = {
  name: 'handoffs',
  title: 'a task moves from agent to agent (HandoffChain, DefaultHandoff, handoff(), routingAgent)',
  async run() {
    const started = asyncScheduler.now();
    const stamp = (): string => `${String(asyncScheduler.now() - started).padStart(5)} ms`;

    const intake = scriptedAgent('intake', 'received');
    const extractor = liveAgent(scriptedAgent('extractor', { reply: 'amount=120 EUR; due=2026-12-01; vendor=Muster GmbH', delay: 300 }));
    const translator = liveAgent(scriptedAgent('translator', { reply: 'amount=120 EUR; due=1 December 2026; vendor=Muster Ltd', delay: 250 }));
    const writer = liveAgent(scriptedAgent('writer', { chunks: ['Dear customer, ', 'your invoice of 120 EUR ', 'is due on 1 December.'], delay: 150, interval: 100 }));
    const chain = HandoffChain.builder()
      .add(intake)
      .add(extractor)
      .add(translator, (context) => context.metadata.language === 'de')
      .add(writer)
      .build();
    // With OPENAI_BASE_URL set, liveAgent swaps the scripted agents for real models (docs/llm.md).
    const strategy = new DefaultHandoff({ timeout: liveModelsConfigured() ? 120_000 : 5_000 });
    strategy.addListener({ onBefore: (from, to, context) => console.log(`${stamp()}  handoff ${from.id} -> ${to.id} (task ${context.taskId}, payload ${JSON.stringify(context.payload)})`) });

    for (const language of ['de', 'en']) {
      console.log(`\n${language === 'de' ? '1' : '2'}) The invoice chain, metadata.language = "${language}": intake -> extractor -> translator (only for "de") -> writer`);
      const start = new HandoffContext({ taskId: `invoice-42-${language}`, payload: { document: 'Rechnung Nr. 42 ...' }, metadata: { language } });
      // steps$ emits each step's result as it arrives (execute$ would emit them all at the end).
      const results = await lastValueFrom(
        chain.steps$(strategy, start).pipe(
          tap((result) => console.log(`${stamp()}  result  ${result.fromAgentId} -> ${result.toAgentId}: ${result.success ? JSON.stringify(result.output) : `failed: ${result.error.message}`} in ${result.durationMs} ms`)),
          toArray(),
        ),
      );
      console.log(`         ${results.length} steps ran; the translator ${results.some((r) => r.toAgentId === 'translator') ? 'ran' : 'was skipped'}`);
    }

    console.log('\n3) A routing agent: "a question about my invoice" goes to Billing by topic filter, no model needed');
    const billing = liveAgent(scriptedAgent('billing', { reply: 'Billing here: invoice 42 was paid on 3 November.', delay: 400 }, { name: 'Billing', role: 'Billing Specialist', goal: 'Resolve payment questions' }));
    const support = liveAgent(scriptedAgent('support', { reply: 'Support here.', delay: 200 }, { name: 'Support Bot' }));
    const model = liveToolCallingModel();
    const assistant = routingAgent({
      id: 'assistant',
      name: 'Assistant',
      instructions: 'You are a helpful assistant',
      // With a live model, inputs no topic filter matches are routed by the model's transfer_to_* tool call.
      ...(model === undefined ? {} : { model }),
      handoffs: [
        handoff({ agent: billing, condition: handoffFilters.topic(['invoice', 'payment', 'refund']), onHandoff: (from, context) => console.log(`${stamp()}  ${from.id} hands off to Billing (chain ${JSON.stringify(context.handoffChain)}, ${context.messages.length} messages of context)`) }),
        handoff({ agent: support, condition: handoffFilters.topic(['error', 'crash', 'broken']) }),
      ],
    });
    console.log(`         tools it would offer a model: ${assistant.handoffs.map((h) => `${h.toolName} ("${h.toolDescription}")`).join(', ')}`);
    const answer = await invoke(assistant, 'I have a question about my invoice', { context: [{ role: 'user', content: 'Hello' }, { role: 'assistant', content: 'Hi! How can I help?' }] });
    console.log(`${stamp()}  reply   ${JSON.stringify(answer)}`);
    if (model !== undefined) {
      const routed = await invoke(assistant, 'My card was charged twice for the same order');
      console.log(`${stamp()}  the model routed a question no filter matches: ${JSON.stringify(routed)}`);
    }

    console.log('\n4) Guards: Billing handing the task back to the assistant is a cycle, refused before Billing is touched');
    const back = handoff({ agent: assistant });
    await back.execute(billing, { input: 'over to you', handoffChain: ['assistant'] }).catch((error: unknown) => {
      if (error instanceof HandoffCycleError) console.log(`         ${error.name}: ${error.message} (retryable=${error.retryable})`);
    });
  },
};
