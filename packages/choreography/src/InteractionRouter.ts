import type { ChoreographyEvent } from './ChoreographyEvent';
import type { ChoreographySpec } from './ChoreographySpec';
import { type Interaction, triggersOf } from './Interaction';

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
  readonly #routes: ReadonlyMap<string, readonly Interaction[]>;
  readonly #started = new Set<string>();
  readonly #joins = new Map<string, Map<string, string | undefined>>();

  constructor(routes: ReadonlyMap<string, readonly Interaction[]>) {
    this.#routes = routes;
  }

  /** Indexes the spec's interactions whose target is hosted by every event that triggers them. */
  static routesOf(spec: ChoreographySpec, hosted: (target: string) => boolean = () => true): ReadonlyMap<string, readonly Interaction[]> {
    const routes = new Map<string, Interaction[]>();
    for (const interaction of spec.interactions) {
      if (!hosted(interaction.target)) continue;
      for (const event of triggersOf(interaction)) {
        const list = routes.get(event);
        if (list === undefined) routes.set(event, [interaction]);
        else list.push(interaction);
      }
    }
    return routes;
  }

  /** Whether the interaction has started. */
  hasStarted(id: string): boolean {
    return this.#started.has(id);
  }

  /** The interactions this event makes ready, each marked started. */
  route(event: ChoreographyEvent): ReadyInteraction[] {
    const candidates = this.#routes.get(event.name);
    if (candidates === undefined) return [];
    const ready: ReadyInteraction[] = [];
    // An initial event carries the run's input; an emitted event the agent's output.
    const payload = event.output ?? event.input;
    for (const interaction of candidates) {
      if (this.#started.has(interaction.id)) continue;
      if (typeof interaction.trigger === 'string') {
        this.#started.add(interaction.id);
        ready.push({ interaction, input: withContext(interaction.task, payload) });
        continue;
      }
      let seen = this.#joins.get(interaction.id);
      if (seen === undefined) {
        seen = new Map();
        this.#joins.set(interaction.id, seen);
      }
      if (!seen.has(event.name)) seen.set(event.name, payload);
      if (seen.size < interaction.trigger.length) continue;
      this.#started.add(interaction.id);
      this.#joins.delete(interaction.id);
      ready.push({ interaction, input: withJoinedContext(interaction.task, interaction.trigger, seen) });
    }
    return ready;
  }
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
