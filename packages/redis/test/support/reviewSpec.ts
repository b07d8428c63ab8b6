import { ChoreographySpec } from '@rxagents/choreography';

/** The agents of {@link reviewSpec}. */
export const AGENT_IDS = ['planner', 'worker', 'editor', 'reviewer'] as const;

/** plan -> w1..w4 (fan-out, all on "worker") -> merge (an AND-join) -> review: each task is its interaction's id. */
export function reviewSpec(): ChoreographySpec {
  const builder = ChoreographySpec.builder('review').initialEvent('start').interaction('plan', 'user', 'planner', 'start', 'planned', 'plan');
  const parts = ['w1', 'w2', 'w3', 'w4'];
  for (const part of parts) builder.interaction(part, 'planner', 'worker', 'planned', `${part}-done`, part);
  return builder
    .interaction({ id: 'merge', source: 'worker', target: 'editor', trigger: parts.map((part) => `${part}-done`), emits: 'merged', task: 'merge' })
    .interaction('review', 'editor', 'reviewer', 'merged', null, 'review')
    .build();
}
