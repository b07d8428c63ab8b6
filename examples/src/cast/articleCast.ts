import { ChoreographySpec } from '@rxagents/choreography';
import { scriptedAgent, type ScriptedAgent } from '@rxagents/testing';
import type { Agent } from '@rxagents/core';
import { liveAgent } from '../liveModels';

/** The article choreography: research -> draft -> review, each agent triggered by the previous one's event. */
export const articleSpec = ChoreographySpec.builder('article')
  .initialEvent('start')
  .interaction('research', 'system', 'researcher', 'start', 'researched', 'Collect sources on agent coordination')
  .interaction('draft', 'researcher', 'writer', 'researched', 'drafted', 'Write a draft from the research')
  .interaction('review', 'writer', 'reviewer', 'drafted', null, 'Review the draft')
  .build();

/** What the article is about unless given another subject. */
export const articleTopic = 'Agents that coordinate without a boss';

/**
 * The article's agents by role, scripted (each streams its reply on `topic` word by word, one word per
 * `wordMs`) or, with `OPENAI_BASE_URL` set, real models (docs/llm.md). `writer` is the scripted writer,
 * to show what it was sent.
 */
export function articleCast(wordMs = 40, topic = articleTopic): { readonly agents: Readonly<Record<string, Agent>>; readonly writer: ScriptedAgent } {
  const streamed = (id: string, reply: string, delay: number): ScriptedAgent =>
    scriptedAgent(id, { chunks: reply.match(/\S+\s*/g) ?? [], delay, interval: wordMs });
  const writer = streamed('writer', `${topic}: a draft.`, 10 * wordMs);
  return {
    writer,
    agents: {
      researcher: liveAgent(streamed('researcher', topic === articleTopic ? '3 sources: RxJS docs, XState, Effect' : `3 sources on "${topic}": RxJS docs, XState, Effect`, 8 * wordMs)),
      writer: liveAgent(writer),
      reviewer: liveAgent(streamed('reviewer', 'Approved, ship it.', 6 * wordMs)),
    },
  };
}
