import type { z } from 'zod';
import { type ChoreographySpec, derivedFrom } from '../ChoreographySpec';
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
  let hinted = 0;
  const hint = (id: string, candidates: readonly string[], noun: string): string => {
    hinted += 1;
    return hinted <= HINTED_ISSUES ? `; ${suggestId(id, candidates, noun)}` : '';
  };
  const covered = (target: string): boolean => hosted.has(target) || remote.has(target);
  // Most specs name a few targets many times: when all of them are covered, no interaction is looked at.
  if (!derivedFrom(spec, targetsOf).every(covered)) {
    // The candidates for hints are gathered only when something is wrong.
    const known = [...hosted, ...[...remote].filter((id) => !hosted.has(id))];
    spec.interactions.forEach((interaction, index) => {
      if (covered(interaction.target)) return;
      context.addIssue({
        code: 'custom',
        path: ['spec', 'interactions', index, 'target'],
        message: `must name an agent of this engine or one of remoteAgents (interaction "${interaction.id}"${hint(interaction.target, known, 'agent')})`,
        input: interaction.target,
      });
    });
  }

  // Without external events, whether every interaction can run is a fact of the spec alone.
  if (externalEvents.length === 0 && derivedFrom(spec, allTriggerableFromStart)) return;
  const reached = externalEvents.length === 0 ? derivedFrom(spec, reachableFromStart) : reachableEvents(spec, externalEvents);
  const { interactions } = spec;
  let publishable: string[] | undefined;
  interactions.forEach((interaction, index) => {
    const { trigger } = interaction;
    if (typeof trigger === 'string' ? reached.has(trigger) : trigger.every((event) => reached.has(event))) return;
    const missing = triggersOf(interaction).filter((event) => !reached.has(event));
    publishable ??= [...new Set([...spec.initialEvents, ...externalEvents, ...interactions.flatMap((i) => (i.emits === null ? [] : [i.emits]))])];
    const candidates = publishable;
    const hints = missing.map((event) => `"${event}"${hint(event, candidates, 'event').replace(/^; /, ': ')}`).join('; ');
    context.addIssue({
      code: 'custom',
      path: ['spec', 'interactions', index, 'trigger'],
      message: `must be an event something publishes: interaction "${interaction.id}" can never run, as no initial event, external event or runnable interaction publishes ${hints}`,
      input: interaction.trigger,
    });
  });
}

/** The distinct targets of the spec's interactions (derived once per spec). */
function targetsOf(spec: ChoreographySpec): readonly string[] {
  return [...new Set(spec.interactions.map((interaction) => interaction.target))];
}

/** Whether every interaction of the spec can be triggered with no external events (derived once per spec). */
function allTriggerableFromStart(spec: ChoreographySpec): boolean {
  const reached = derivedFrom(spec, reachableFromStart);
  return spec.interactions.every(({ trigger }) => (typeof trigger === 'string' ? reached.has(trigger) : trigger.every((event) => reached.has(event))));
}

/** The events a run can publish with no external events (derived once per spec). */
function reachableFromStart(spec: ChoreographySpec): ReadonlySet<string> {
  return reachableEvents(spec, []);
}

/**
 * Every event that can be published in a run: initial and external events, then the `emits` of every
 * interaction they can trigger, transitively.
 *
 * @remarks
 * The interactions waiting for each event are linked lists over typed arrays (one slot per trigger of
 * an interaction, the head of each list in a map by event name), so the index costs one map entry per
 * event and no array per event.
 */
function reachableEvents(spec: ChoreographySpec, externalEvents: readonly string[]): ReadonlySet<string> {
  const { interactions } = spec;
  let slots = 0;
  for (const { trigger } of interactions) slots += typeof trigger === 'string' ? 1 : trigger.length;
  const slotInteraction = new Int32Array(slots);
  const nextSlot = new Int32Array(slots);
  const remaining = new Int32Array(interactions.length);
  const firstSlot = new Map<string, number>();
  let slot = 0;
  const wait = (event: string, index: number): void => {
    slotInteraction[slot] = index;
    nextSlot[slot] = firstSlot.get(event) ?? -1;
    firstSlot.set(event, slot);
    slot += 1;
  };
  interactions.forEach(({ trigger }, index) => {
    if (typeof trigger === 'string') {
      wait(trigger, index);
      remaining[index] = 1;
    } else {
      for (const event of trigger) wait(event, index);
      remaining[index] = trigger.length;
    }
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
    for (let waiting = firstSlot.get(queue.pop() as string) ?? -1; waiting !== -1; waiting = nextSlot[waiting] as number) {
      const index = slotInteraction[waiting] as number;
      remaining[index] = (remaining[index] as number) - 1;
      const emits = (interactions[index] as (typeof interactions)[number]).emits;
      if (remaining[index] === 0 && emits !== null) reach(emits);
    }
  }
  return reached;
}
