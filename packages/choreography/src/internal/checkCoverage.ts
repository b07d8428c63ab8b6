import type { z } from 'zod';
import type { ChoreographySpec } from '../ChoreographySpec';
import { triggersOf } from '../Interaction';
import { suggestId } from './closestId';

/**
 * How many issues get a did-you-mean hint: as many as a `ConfigError` message lists. Past it the hint
 * is left out, so a huge broken spec costs no more than O(listed x candidates) edit distances.
 */
const HINTED_ISSUES = 20;

/** What the coverage check needs from engine options. */
export interface Coverage {
  readonly spec: ChoreographySpec;
  readonly agentIds: readonly string[];
  readonly remoteAgents: readonly string[];
  readonly externalEvents: readonly string[];
}

/**
 * Refuses what would only fail at run time: a target with no agent (neither hosted nor remote), an id
 * both hosted and remote, and an interaction that no event can ever trigger.
 *
 * @remarks
 * An event can be published when it is an initial event, an external event, or the `emits` of an
 * interaction that can itself be triggered (all of its triggers, for an AND-join): a fixed point
 * computed in O(interactions + triggers).
 *
 * @internal
 */
export function checkCoverage({ spec, agentIds, remoteAgents, externalEvents }: Coverage, context: z.RefinementCtx): void {
  const hosted = new Set(agentIds);
  const remote = new Set(remoteAgents);
  for (const id of remote) {
    if (hosted.has(id)) {
      context.addIssue({ code: 'custom', path: ['remoteAgents'], message: 'must not name an agent this engine hosts (it is also in agents)', input: id });
    }
  }
  const known = [...hosted, ...[...remote].filter((id) => !hosted.has(id))];
  let hinted = 0;
  const hint = (id: string, candidates: readonly string[], noun: string): string => {
    hinted += 1;
    return hinted <= HINTED_ISSUES ? `; ${suggestId(id, candidates, noun)}` : '';
  };
  spec.interactions.forEach((interaction, index) => {
    if (hosted.has(interaction.target) || remote.has(interaction.target)) return;
    context.addIssue({
      code: 'custom',
      path: ['spec', 'interactions', index, 'target'],
      message: `must name an agent of this engine or one of remoteAgents (interaction "${interaction.id}"${hint(interaction.target, known, 'agent')})`,
      input: interaction.target,
    });
  });

  const reached = reachableEvents(spec, externalEvents);
  const publishable = [...new Set([...spec.initialEvents, ...externalEvents, ...spec.interactions.flatMap((i) => (i.emits === null ? [] : [i.emits]))])];
  spec.interactions.forEach((interaction, index) => {
    const missing = triggersOf(interaction).filter((event) => !reached.has(event));
    if (missing.length === 0) return;
    const hints = missing.map((event) => `"${event}"${hint(event, publishable, 'event').replace(/^; /, ': ')}`).join('; ');
    context.addIssue({
      code: 'custom',
      path: ['spec', 'interactions', index, 'trigger'],
      message: `must be an event something publishes: interaction "${interaction.id}" can never run, as no initial event, external event or runnable interaction publishes ${hints}`,
      input: interaction.trigger,
    });
  });
}

/** Every event that can be published in a run: initial and external events, then the `emits` of every interaction they can trigger, transitively. */
function reachableEvents(spec: ChoreographySpec, externalEvents: readonly string[]): ReadonlySet<string> {
  const waiting = new Map<string, number[]>();
  const remaining = spec.interactions.map((interaction, index) => {
    const triggers = triggersOf(interaction);
    for (const event of triggers) {
      const list = waiting.get(event);
      if (list === undefined) waiting.set(event, [index]);
      else list.push(index);
    }
    return triggers.length;
  });
  const reached = new Set<string>();
  const queue: string[] = [];
  const reach = (event: string): void => {
    if (reached.has(event)) return;
    reached.add(event);
    queue.push(event);
  };
  for (const event of spec.initialEvents) reach(event);
  for (const event of externalEvents) reach(event);
  while (queue.length > 0) {
    for (const index of waiting.get(queue.pop() as string) ?? []) {
      remaining[index] = (remaining[index] as number) - 1;
      const emits = (spec.interactions[index] as (typeof spec.interactions)[number]).emits;
      if (remaining[index] === 0 && emits !== null) reach(emits);
    }
  }
  return reached;
}
