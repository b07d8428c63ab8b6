import { tap } from 'rxjs';
import { lastValue, runView } from '@rxagents/core';
import { Patterns } from '@rxagents/patterns';
import { debateCast, debateTopic, words } from '../cast/debateCast';
import { liveModelsConfigured } from '../liveModels';
import { terminalRenderer } from '../renderRunView';
import type { Scene } from '../Scene';

/**
 * Three agents debate over a StreamingChannel and a judge ends it. The whole run is watched through its
 * run events: each debater's tokens appear on its own line as they are written, with the rounds, the
 * judge's decision and the channel's metrics, all rendered from `runView`.
 */
export const scene: Scene = {
  name: 'patterns',
  title: 'a three-agent debate over a channel, streamed token by token, ended by a judge',
  async run() {
    // With OPENAI_BASE_URL set, the cast's scripted agents are real models (docs/llm.md).
    const { debaters, judge } = debateCast();
    const debate = Patterns.debate({
      agents: [...debaters],
      maxRounds: 5,
      judge,
      agentTimeout: liveModelsConfigured() ? 60_000 : 5_000,
    }).overChannel({ id: 'architecture-debate' });

    const renderer = terminalRenderer();
    const view = await lastValue(runView(debate.events$(debateTopic)).pipe(tap((snapshot) => renderer.render(snapshot))));
    renderer.finish(view);
    const root = view.nodes.find((node) => node.callId === view.rootId);
    const calls = view.nodes.filter((node) => node.kind === 'call');
    console.log(`status: ${view.status}, agent calls: ${calls.length}, tokens streamed: ${calls.reduce((sum, node) => sum + words(node.text).length, 0)}, in ${root?.durationMs ?? 0} ms`);
  },
};
