import { type Agent, callAgent, delayTimer, type RunContext } from '@rxagents/core';
import {
  defer,
  EMPTY,
  endWith,
  ignoreElements,
  map,
  merge,
  mergeMap,
  type Observable,
  of,
  type Observer,
  type SchedulerLike,
  take,
  tap,
} from 'rxjs';
import type { ChoreographyEvent } from '../ChoreographyEvent';
import type { ChoreographyLogger } from '../ChoreographyLogger';
import type { ChoreographyResult, StepResult } from '../ChoreographyResult';
import type { ChoreographySpec } from '../ChoreographySpec';
import { DeadlockDetector } from '../DeadlockDetector';
import type { EventBus } from '../EventBus';
import type { Interaction } from '../Interaction';
import { InteractionRouter, type ReadyInteraction } from '../InteractionRouter';
import { ChoreographyTimeoutError } from '../errors/ChoreographyTimeoutError';
import { ChoreographyRunEvents } from './ChoreographyRunEvents';

/** Everything one run needs; the engine validated it. */
export interface RunSettings {
  readonly spec: ChoreographySpec;
  /** The agents of this engine; every interaction whose target is here is hosted. */
  readonly agents: ReadonlyMap<string, Agent>;
  /** The hosted interactions, indexed by the events that trigger them. */
  readonly routes: ReadonlyMap<string, readonly Interaction[]>;
  /** How many interactions this engine runs. */
  readonly hostedCount: number;
  readonly timeout: number;
  readonly scheduler: SchedulerLike;
  readonly logger: ChoreographyLogger;
  readonly bus: EventBus;
  /** Hears each step and each event of the run, as they happen. */
  readonly steps: Pick<Observer<StepResult>, 'next'>;
  readonly events: Pick<Observer<ChoreographyEvent>, 'next'>;
  /** Ends the run once: completes steps and events, closes the bus; returns what `close` threw. */
  readonly end: () => { readonly error: unknown } | undefined;
}

/** An interaction whose agent is running, with the input it got, and since when (scheduler time). */
interface RunningStep {
  readonly interaction: Interaction;
  readonly input: string;
  readonly startedAt: number;
}

/**
 * One run of a choreography: subscribes to the bus, publishes the initial events (carrying `input`,
 * if given), routes events to hosted interactions and ends when all have run or at the timeout.
 * With a `node`, the run reports its published events, agent calls, steps and termination into it.
 *
 * @internal
 */
export function runChoreography(settings: RunSettings, input: string | undefined, node: RunContext | undefined): Observable<ChoreographyResult> {
  const { spec, scheduler, bus, hostedCount } = settings;
  const startedAt = scheduler.now();
  const cycles = warnAboutCycles(spec, settings.logger);
  const router = new InteractionRouter(settings.routes);
  const running = new Map<string, RunningStep>();
  const stepResults: StepResult[] = [];
  const reporter = node === undefined ? undefined : new ChoreographyRunEvents(node);
  const record = (step: StepResult): void => {
    stepResults.push(step);
    settings.steps.next(step);
    reporter?.step(step);
  };

  const routed$ = bus.events$.pipe(
    tap(
      reporter === undefined
        ? (event) => settings.events.next(event)
        : (event) => {
            settings.events.next(event);
            reporter.published(event);
          },
    ),
  );
  const allStepsDone$ =
    hostedCount === 0
      ? routed$.pipe(ignoreElements())
      : routed$.pipe(
          mergeMap((event) => router.route(event)),
          mergeMap((ready) => runStep(settings, ready, running, node)),
          tap((step) => {
            record(step);
            const emits = spec.interaction(step.interactionId)?.emits;
            if (step.success && emits !== null && emits !== undefined) {
              bus.publish({ name: emits, output: step.output ?? '', interactionId: step.interactionId, agentId: step.agentId });
            }
          }),
          take(hostedCount),
          ignoreElements(),
          endWith(false),
        );
  const timedOut$ = delayTimer(settings.timeout, scheduler).pipe(map(() => true));
  const start$ = defer(() => {
    for (const name of spec.initialEvents) bus.publish(input === undefined ? { name } : { name, input });
    // An engine that runs none of the interactions only starts the run.
    return hostedCount === 0 ? of(false) : EMPTY;
  });

  return merge(allStepsDone$, timedOut$, start$).pipe(
    take(1),
    map((timedOut) => {
      const now = scheduler.now();
      if (timedOut) {
        const error = new ChoreographyTimeoutError(spec.name, settings.timeout);
        for (const { interaction, input: stepInput, startedAt: stepStart } of running.values()) {
          record({ interactionId: interaction.id, agentId: interaction.target, input: stepInput, success: false, error, startedAt: stepStart, durationMs: now - stepStart });
        }
      }
      const failedCount = stepResults.filter((step) => !step.success).length;
      const result: ChoreographyResult = {
        success: failedCount === 0,
        stepResults: [...stepResults],
        totalDurationMs: now - startedAt,
        completedCount: stepResults.length - failedCount,
        failedCount,
        timedOut,
        pending: spec.interactions
          .filter((interaction) => settings.agents.has(interaction.target) && !router.hasStarted(interaction.id))
          .map((interaction) => interaction.id),
      };
      // The steps cut short by the timeout are still in `running`: their calls are aborted after this.
      reporter?.terminated(spec, result, { timeout: settings.timeout, hostedCount, aborted: timedOut ? [...running.keys()] : [], cycles });
      const closeError = settings.end();
      if (closeError !== undefined) throw closeError.error;
      return result;
    }),
  );
}

function runStep(settings: RunSettings, { interaction, input }: ReadyInteraction, running: Map<string, RunningStep>, run: RunContext | undefined): Observable<StepResult> {
  return defer(() => {
    const { scheduler } = settings;
    // Routes hold hosted interactions only, so the agent is there.
    const agent = settings.agents.get(interaction.target) as Agent;
    running.set(interaction.id, { interaction, input, startedAt: scheduler.now() });
    const { timeout } = interaction;
    // Without a run, the options are what they were before runs existed: no key for the call to check.
    const options =
      run === undefined ? (timeout === undefined ? { scheduler } : { scheduler, timeout }) : timeout === undefined ? { scheduler, run } : { scheduler, timeout, run };
    return callAgent(agent, input, options).pipe(
      // The step names the agent by the id it is registered under (the interaction's target).
      map((call): StepResult => ({ interactionId: interaction.id, ...call, agentId: interaction.target })),
      tap(() => running.delete(interaction.id)),
    );
  });
}

/** Warns about cycles in the spec's source-to-target graph; returns them as text (empty for none). */
function warnAboutCycles(spec: ChoreographySpec, logger: ChoreographyLogger): string {
  const { cycles, hasDeadlock, truncated } = DeadlockDetector.detect(spec);
  if (!hasDeadlock) return '';
  const listed = `${cycles.map((cycle) => [...cycle, cycle[0]].join(' -> ')).join('; ')}${truncated ? '; more cycles not listed' : ''}`;
  logger.warn(`Choreography "${spec.name}" has a cycle in its source-to-target graph (possible deadlock): ${listed}. Running anyway.`);
  return listed;
}
