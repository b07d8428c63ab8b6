import { asyncScheduler } from 'rxjs';
import { defineAgent, lastValue } from '@rxagents/core';
import { scriptedAgent } from '@rxagents/testing';
import { Patterns, type PostedMessage } from '@rxagents/patterns';
import { liveAgent, liveModelsConfigured } from '../liveModels';
import type { Scene } from '../Scene';

const lines: Record<string, readonly string[]> = {
  architect: [
    'Split the monolith: billing first, it changes weekly.',
    'Agreed on one service, then measure before the next.',
    'Then we agree: extract billing, keep the rest, review in a quarter.',
  ],
  operator: [
    'Every new service is a pager. Fix the deploy pipeline first.',
    'One service is fine if it ships through the same pipeline.',
    'Yes: billing only, same pipeline, revisit in Q3.',
  ],
  accountant: [
    'Billing bugs cost us most. Isolate it, cap the spend.',
    'A single extraction fits the budget; two would not.',
    'Signed off: billing alone, budget capped.',
  ],
};

/** Three scripted agents debate over a StreamingChannel; each turn is printed as it is spoken; a judge ends it. */
export const scene: Scene = {
  name: 'patterns',
  title: 'a three-agent debate over a channel, ended by a judge',
  async run() {
    // With OPENAI_BASE_URL set, liveAgent swaps each scripted agent for a real model (docs/llm.md).
    const debater = (id: string, delay: number) =>
      liveAgent(
        scriptedAgent(id, (prompt) => ({ reply: lines[id]?.[Number(/Round (\d+)/.exec(prompt)?.[1] ?? 1) - 1] ?? '(nothing more)', delay }), {
          role: `the ${id} in an architecture debate`,
        }),
      );
    const judgeModel = liveAgent(
      scriptedAgent('judge', (prompt) =>
        /Signed off/.test(prompt)
          ? { reply: 'CONVERGED: extract billing only, same pipeline, capped budget.', delay: 150 }
          : { reply: 'CONTINUE: positions still differ.', delay: 150 },
      ),
      { system: 'You judge a debate. Reply "CONVERGED: <the agreed position>" once the debaters agree, else "CONTINUE: <what still differs>".' },
    );
    let verdictsAsked = 0;
    const judge = defineAgent('judge', (input, options) => {
      verdictsAsked += 1;
      return judgeModel.chat(input, options);
    });
    const started = asyncScheduler.now();
    const stamp = () => `${String(asyncScheduler.now() - started).padStart(5)} ms`;

    const debate = Patterns.debate({
      agents: [debater('architect', 220), debater('operator', 180), debater('accountant', 200)],
      maxRounds: 5,
      judge,
      agentTimeout: liveModelsConfigured() ? 60_000 : 2_000,
    }).overChannel({
      id: 'architecture-debate',
      // Watch the raw channel: each turn is printed the moment it is posted.
      onChannel: (channel) =>
        channel.subscribe((item: unknown) => {
          const message = item as PostedMessage;
          console.log(`${stamp()}  ${message.speaker.padEnd(10)} ${message.content}`);
        }),
    });

    const result = await lastValue(debate.execute$('Should we split the monolith this year?'));
    console.log(`${stamp()}  judge      ${result.reason ?? ''}`);
    console.log(`status: ${result.status}, rounds: ${result.iterations}, messages: ${result.state.messages.length}, verdicts asked: ${verdictsAsked}, mode: ${result.mode}`);
  },
};
