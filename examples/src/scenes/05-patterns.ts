import { tap } from 'rxjs';
import { lastValue, runView } from '@rxagents/core';
import { scriptedAgent } from '@rxagents/testing';
import { Patterns } from '@rxagents/patterns';
import { liveAgent, liveModelsConfigured } from '../liveModels';
import { terminalRenderer } from '../renderRunView';
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

/**
 * Three agents debate over a StreamingChannel and a judge ends it. The whole run is watched through its
 * run events: each debater's tokens appear on its own line as they are written, with the rounds, the
 * judge's decision and the channel's metrics, all rendered from `runView`.
 */
export const scene: Scene = {
  name: 'patterns',
  title: 'a three-agent debate over a channel, streamed token by token, ended by a judge',
  async run() {
    // With OPENAI_BASE_URL set, liveAgent swaps each scripted agent for a real model (docs/llm.md).
    const debater = (id: string, interval: number) =>
      liveAgent(
        scriptedAgent(id, (prompt) => ({ chunks: words(lines[id]?.[Number(/Round (\d+)/.exec(prompt)?.[1] ?? 1) - 1] ?? '(nothing more)'), delay: interval, interval }), {
          role: `the ${id} in an architecture debate`,
        }),
      );
    const judge = liveAgent(
      scriptedAgent('judge', (prompt) =>
        /Signed off/.test(prompt)
          ? { chunks: words('CONVERGED: extract billing only, same pipeline, capped budget.'), delay: 40, interval: 40 }
          : { chunks: words('CONTINUE: positions still differ.'), delay: 40, interval: 40 },
      ),
      { system: 'You judge a debate. Reply "CONVERGED: <the agreed position>" once the debaters agree, else "CONTINUE: <what still differs>".' },
    );

    const debate = Patterns.debate({
      agents: [debater('architect', 45), debater('operator', 35), debater('accountant', 40)],
      maxRounds: 5,
      judge,
      agentTimeout: liveModelsConfigured() ? 60_000 : 5_000,
    }).overChannel({ id: 'architecture-debate' });

    const renderer = terminalRenderer();
    const view = await lastValue(runView(debate.events$('Should we split the monolith this year?')).pipe(tap((snapshot) => renderer.render(snapshot))));
    renderer.finish(view);
    const root = view.nodes.find((node) => node.callId === view.rootId);
    const calls = view.nodes.filter((node) => node.kind === 'call');
    console.log(`status: ${view.status}, agent calls: ${calls.length}, tokens streamed: ${calls.reduce((sum, node) => sum + words(node.text).length, 0)}, in ${root?.durationMs ?? 0} ms`);
  },
};

/** A reply as the tokens a model would stream: words with their trailing space. */
function words(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [];
}
