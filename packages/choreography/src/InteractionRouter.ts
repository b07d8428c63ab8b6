import type { ChoreographyEvent } from './ChoreographyEvent';
import { type ChoreographySpec, derivedFrom } from './ChoreographySpec';
import type { Interaction } from './Interaction';

/** An interaction whose triggers have all been published, with the input its agent will receive. */
export interface ReadyInteraction {
  readonly interaction: Interaction;
  readonly input: string;
}

/**
 * Routes one run's events to the interactions they start: a map lookup by event name.
 *
 * @remarks
 * Internal to {@link ChoreographyEngine}; one router per run. Each interaction starts at most once.
 * An AND-join keeps the first output of each of its triggers and starts when the last one arrives.
 * The input is the task, followed by `Context: <output>` when the triggering event carries an
 * output (or `Context: <input>` when it is an initial event carrying the run's input); an AND-join adds one `Context (<event>): <output>` paragraph per trigger that carries one,
 * in the order the triggers are listed.
 *
 * @internal
 */
export class InteractionRouter {
  readonly #routes: ReadonlyMap<string, readonly RoutedInteraction[]>;
  /** Whether this engine runs each interaction, by its position in the spec. */
  readonly #hosted: Uint8Array;
  /** Whether each interaction has started, by its position in the spec: no hashing per event. */
  readonly #started: Uint8Array;
  #startedCount = 0;
  readonly #joins = new Map<number, Map<string, string | undefined>>();

  /** A router for one run of `spec`, routing to the interactions whose position is flagged in `hosted`. */
  constructor(spec: ChoreographySpec, hosted: Uint8Array) {
    this.#routes = derivedFrom(spec, triggerIndex);
    this.#hosted = hosted;
    this.#started = new Uint8Array(hosted.length);
  }

  /** How many interactions have started. */
  get startedCount(): number {
    return this.#startedCount;
  }

  /** Whether the interaction at this position of the spec has started. */
  hasStarted(index: number): boolean {
    return this.#started[index] === 1;
  }

  /** The interactions this event makes ready, each marked started. */
  route(event: ChoreographyEvent): ReadyInteraction[] {
    const candidates = this.#routes.get(event.name);
    if (candidates === undefined) return [];
    const ready: ReadyInteraction[] = [];
    // An initial event carries the run's input; an emitted event the agent's output.
    const payload = event.output ?? event.input;
    for (let position = 0; position < candidates.length; position += 1) {
      const { interaction, index } = candidates[position] as RoutedInteraction;
      if (this.#hosted[index] === 0 || this.#started[index] === 1) continue;
      if (typeof interaction.trigger === 'string') {
        this.#start(index);
        ready.push({ interaction, input: withContext(interaction.task, payload) });
        continue;
      }
      let seen = this.#joins.get(index);
      if (seen === undefined) {
        seen = new Map();
        this.#joins.set(index, seen);
      }
      if (!seen.has(event.name)) seen.set(event.name, payload);
      if (seen.size < interaction.trigger.length) continue;
      this.#start(index);
      this.#joins.delete(index);
      ready.push({ interaction, input: withJoinedContext(interaction.task, interaction.trigger, seen) });
    }
    return ready;
  }

  #start(index: number): void {
    this.#started[index] = 1;
    this.#startedCount += 1;
  }
}

/** An interaction and its position in the spec. @internal */
export interface RoutedInteraction {
  readonly interaction: Interaction;
  readonly index: number;
}

/** Every interaction of the spec, with its position, indexed by each event that triggers it (derived once per spec). */
function triggerIndex(spec: ChoreographySpec): ReadonlyMap<string, readonly RoutedInteraction[]> {
  const byTrigger = new Map<string, RoutedInteraction[]>();
  spec.interactions.forEach((interaction, index) => {
    const routed: RoutedInteraction = { interaction, index };
    const { trigger } = interaction;
    if (typeof trigger === 'string') addRoute(byTrigger, trigger, routed);
    else for (const event of trigger) addRoute(byTrigger, event, routed);
  });
  return byTrigger;
}

function addRoute(byTrigger: Map<string, RoutedInteraction[]>, event: string, routed: RoutedInteraction): void {
  const list = byTrigger.get(event);
  if (list === undefined) byTrigger.set(event, [routed]);
  else list.push(routed);
}

function withContext(task: string, output: string | undefined): string {
  return output === undefined ? task : `${task}\n\nContext: ${output}`;
}

function withJoinedContext(task: string, triggers: readonly string[], outputs: ReadonlyMap<string, string | undefined>): string {
  let input = task;
  for (const event of triggers) {
    const output = outputs.get(event);
    if (output !== undefined) input += `\n\nContext (${event}): ${output}`;
  }
  return input;
}
