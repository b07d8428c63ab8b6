import type { Observable } from 'rxjs';
import { z } from 'zod';
import type { Agent, RunEvent } from '@rxagents/core';
import { ChoreographyEngine } from '@rxagents/choreography';
import { Patterns } from '@rxagents/patterns';
import { articleCast, articleSpec, articleTopic } from '../src/cast/articleCast';
import { debateCast, debateTopic } from '../src/cast/debateCast';
import { liveModelsConfigured } from '../src/liveModels';
import type { AgentCalls } from './watchedAgent';

/** What the page asks for when a person presses Start (the body of `POST /api/runs`). */
export const StartRunSchema = z.strictObject({
  /** `approval` and `input` are durable runs that wait for a person (see `interruptRuns.ts`); the topic is the customer or the destination. */
  scene: z.enum(['debate', 'article', 'approval', 'input']),
  topic: z.string().trim().min(1).max(500).optional(),
  /** Whether a person joins the debate (through the page's input box). */
  human: z.boolean().default(false),
  /** About how many milliseconds each scripted word takes. */
  wordMs: z.number().int().min(1).max(1_000).default(40),
});
export type StartRun = z.infer<typeof StartRunSchema>;

/** The run events of one scene the page can start, every agent call recorded in `calls`. */
export function demoRun(request: StartRun & { readonly scene: 'debate' | 'article' }, calls: AgentCalls, human: Agent | undefined): Observable<RunEvent> {
  const live = liveModelsConfigured();
  if (request.scene === 'article') {
    const topic = request.topic ?? articleTopic;
    const { agents } = articleCast(request.wordMs, topic);
    return ChoreographyEngine.builder()
      .spec(articleSpec)
      .agents(Object.fromEntries(Object.entries(agents).map(([role, agent]) => [role, calls.watch(agent)])))
      .timeout(live ? 180_000 : 60_000)
      .build()
      .events$({ input: topic });
  }
  const topic = request.topic ?? debateTopic;
  const { debaters, judge } = debateCast(request.wordMs, topic);
  // A person answers in their own time; scripted agents within seconds, real models within a minute.
  const agentTimeout = human !== undefined ? 600_000 : live ? 60_000 : 30_000;
  const [first, ...rest] = debaters;
  const speakers = human === undefined ? debaters : [first as Agent, human, ...rest];
  return Patterns.debate({ agents: speakers.map((agent) => calls.watch(agent)), maxRounds: 5, judge: calls.watch(judge), agentTimeout })
    .overChannel({ id: 'architecture-debate' })
    .events$(topic);
}
