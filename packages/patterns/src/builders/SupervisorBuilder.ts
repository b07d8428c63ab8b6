import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { type Agent, configRules } from '@rxagents/core';
import { z } from 'zod';
import type { AgentRef } from '../agents/AgentRef';
import { agentList, agentRule } from '../agents/agentList';
import { AppendLog } from '../conversation/AppendLog';
import { logView, markedLog, markLog } from '../conversation/logView';
import { EmptyAnswerError } from '../errors/EmptyAnswerError';
import { UnknownParticipantError } from '../errors/UnknownParticipantError';
import { channelBackend, type ChannelBackendOptions, channelSettings } from '../channel/ChannelBackend';
import { assembleModel, attachBackend } from '../execution/assembleModel';
import type { PostedMessage } from '../conversation/ConversationState';
import { parseOnce } from './validated';
import type { ExecutionModel } from '../execution/ExecutionModel';
import { modelConversation } from './modelConversation';
import { PatternBuilder } from './PatternBuilder';
import * as Terminations from '../termination/terminationConditions';


/** `steps` of every SupervisorState: one getter for all (see logView). */
const STEPS = logView();
/**
 * Options of {@link Patterns.supervisor}.
 *
 * @remarks
 * A custom `prompt` must still ask for the reply format the supervisor parses:
 * `DELEGATE <worker>: <instruction>` or `FINAL: <answer>`.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns, type SupervisorOptions } from '@rxagents/patterns';
 *
 * const options: SupervisorOptions = {
 *   supervisor: defineAgent('lead', async () => 'FINAL: nothing to delegate'),
 *   workers: [defineAgent('researcher', async () => 'facts', { role: 'finds facts' })],
 *   maxSteps: 4,
 *   prompt: (state, workers) => `Task: ${state.task}. Done: ${state.steps.length}. Workers: ${workers.map((w) => w.id).join(', ')}`,
 *   agentTimeout: 60_000,
 * };
 * console.log((await Patterns.supervisor(options).execute('Summarise Q3')).output); // nothing to delegate
 * ```
 */
export interface SupervisorOptions {
  /** Decides, step by step, which worker does what, and when the task is done. */
  readonly supervisor: Agent;
  /** The workers it may delegate to: agents, or whole patterns as `ComposedAgent`s. At least one. */
  readonly workers: readonly AgentRef[];
  /**
   * Delegations the supervisor may make. Default 10. After the last one's result, the supervisor has one
   * more turn, told that no delegation is left, to give its final answer; delegating then escalates.
   */
  readonly maxSteps?: number;
  /** What the supervisor is asked. Default: the task, the workers, the results so far, the reply format. */
  readonly prompt?: (state: SupervisorState, workers: readonly AgentRef[]) => string;
  /** Per-call limit in ms (supervisor and workers); up to `MAX_DELAY_MS` (about 24.8 days), `Infinity` for none. */
  readonly agentTimeout?: number;
  /** Whole-run limit in ms; up to `MAX_DELAY_MS` (about 24.8 days), `Infinity` for none. */
  readonly timeout?: number;
  readonly scheduler?: SchedulerLike;
}

/**
 * The zod schema of {@link SupervisorOptions}.
 *
 * @remarks
 * Strict: an unknown key is an error. Parsing applies the default `maxSteps` (10).
 *
 * @example
 * ```ts
 * import { defineAgent, parseConfig } from '@rxagents/core';
 * import { SupervisorOptionsSchema } from '@rxagents/patterns';
 *
 * const lead = defineAgent('lead', async () => 'FINAL: done');
 * const worker = defineAgent('worker', async () => 'ok');
 * const limits = JSON.parse('{ "timeout": 300000 }');
 * const settings = parseConfig(SupervisorOptionsSchema, { ...limits, supervisor: lead, workers: [worker] }, 'Supervisor options');
 * console.log(settings.maxSteps, settings.timeout); // 10 300000
 * ```
 */
export const SupervisorOptionsSchema = z.strictObject({
  supervisor: agentRule(),
  workers: agentList<AgentRef>(1, 'must list at least one worker'),
  maxSteps: configRules.positiveInt().default(10),
  prompt: configRules.function<(state: SupervisorState, workers: readonly AgentRef[]) => string>().optional(),
  agentTimeout: configRules.timeoutMs().optional(),
  timeout: configRules.timeoutMs().optional(),
  scheduler: configRules.scheduler().optional(),
}).superRefine((options, ctx) => {
  const clash = options.workers.find((worker) => worker.id === options.supervisor.id);
  if (clash !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['supervisor', 'id'], input: clash.id, message: `must differ from every worker's id: ${JSON.stringify(clash.id)} names the supervisor and a worker` });
  }
});

/**
 * One delegation: who was asked what, and what came back.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns, type SupervisorStep } from '@rxagents/patterns';
 *
 * let turn = 0;
 * const lead = defineAgent('lead', async () => (turn++ === 0 ? 'DELEGATE researcher: find Q3 revenue' : 'FINAL: revenue grew 12%'));
 * const researcher = defineAgent('researcher', async () => 'Q3 revenue +12%');
 * const line = (step: SupervisorStep): string => `${step.worker} <- ${step.instruction}: ${step.output}`;
 * const result = await Patterns.supervisor({ supervisor: lead, workers: [researcher] }).execute('Summarise Q3');
 * console.log(result.state.steps.map(line)); // [ 'researcher <- find Q3 revenue: Q3 revenue +12%' ]
 * ```
 */
export interface SupervisorStep {
  readonly worker: string;
  readonly instruction: string;
  readonly output: string;
}

/**
 * The state of a supervised run.
 *
 * @remarks
 * Each driver iteration changes it once: a delegation sets `pending`, the worker's reply moves it
 * into `steps` (and lowers `remainingSteps`), a final answer sets `final`.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns, type SupervisorState } from '@rxagents/patterns';
 *
 * let turn = 0;
 * const lead = defineAgent('lead', async () => (turn++ === 0 ? 'DELEGATE researcher: find the numbers' : 'FINAL: up 12%'));
 * const researcher = defineAgent('researcher', async () => 'Q3 revenue +12%');
 * const show = (s: SupervisorState): string => s.final ?? (s.pending ? `waiting for ${s.pending.worker}` : `${s.steps.length} step(s) done`);
 * Patterns.supervisor({ supervisor: lead, workers: [researcher] })
 *   .snapshots$('Summarise Q3')
 *   .subscribe(({ status, state }) => console.log(status, show(state)));
 * // running waiting for researcher
 * // running 1 step(s) done
 * // running up 12%
 * // completed up 12%
 * ```
 */
export interface SupervisorState {
  readonly task: string;
  /** The delegations done so far: a frozen array, built when first read. */
  readonly steps: readonly SupervisorStep[];
  /**
   * Delegations still allowed: `maxSteps` minus the steps done. At 0 the supervisor's next turn is its
   * last: it must give its final answer, and a delegation escalates the run.
   */
  readonly remainingSteps: number;
  /**
   * The delegation the supervisor just decided, waiting for its worker. In a run escalated at
   * `maxSteps`, the delegation the supervisor asked for on its last turn, which no worker ran.
   */
  readonly pending: { readonly worker: string; readonly instruction: string } | undefined;
  /** The supervisor's final answer, once given. */
  readonly final: string | undefined;
  /** Why the run cannot go on (an unknown worker named, a reply with no answer), if so. */
  readonly error: unknown;
}

const DELEGATE = /^\s*DELEGATE\s+/i;
const FINAL = /^\s*FINAL\s*:\s*/i;

/**
 * Reads `DELEGATE <worker>: <instruction>`, matching the worker against the known ids, longest first,
 * so ids with spaces, colons or any script (`data analyst`, `аналитик`, `team:alpha`) are found.
 * An id that names no worker is returned as `unknown` (up to the first colon); no colon: no delegation.
 */
function parseDelegation(reply: string, idsLongestFirst: readonly string[]): { readonly worker: string; readonly instruction: string } | { readonly unknown: string } | undefined {
  const head = DELEGATE.exec(reply);
  if (head === null) return undefined;
  const rest = reply.slice(head[0].length);
  for (const id of idsLongestFirst) {
    if (!rest.startsWith(id)) continue;
    const colon = /^\s*:/.exec(rest.slice(id.length));
    if (colon !== null) return { worker: id, instruction: rest.slice(id.length + colon[0].length).trim() };
  }
  const colon = rest.indexOf(':');
  return colon < 0 ? undefined : { unknown: rest.slice(0, colon).trim() };
}

const defaultPrompt = (state: SupervisorState, workers: readonly AgentRef[]): string =>
  [
    `Task: ${state.task}`,
    `Workers: ${workers.map((w) => (w.role === undefined ? w.id : `${w.id} (${w.role})`)).join(', ')}`,
    'Results so far:',
    state.steps.length === 0 ? '(none)' : state.steps.map((s) => `- ${s.worker} <- ${s.instruction}\n  ${s.output}`).join('\n'),
    state.remainingSteps === 0
      ? 'No delegations left: reply "FINAL: <answer>" with your answer from the results so far.'
      : 'Reply "DELEGATE <worker>: <instruction>" to delegate, or "FINAL: <answer>" when the task is done.',
  ].join('\n');

/**
 * A supervisor: one agent delegates sub-tasks to workers, one at a time, until it gives a final answer.
 *
 * @remarks
 * Each driver iteration is one call: the supervisor (whose reply is `DELEGATE <worker>: <instruction>`
 * or `FINAL: <answer>`; any other reply with text is taken as the final answer, and an empty or blank
 * one, or `FINAL:` with nothing after it, fails the run with {@link EmptyAnswerError}), then the named worker with the
 * instruction, then the supervisor again with the results so far. A worker may be a `ComposedAgent`: a
 * debate built with `.overChannel()` runs over its own channel as one sub-task, and the supervisor
 * neither knows nor cares. Workers are called with core's `invoke$` through the orchestrated driver, so
 * timeouts and cancellation reach them like any agent; a failing call fails the run. `.overChannel()`
 * runs the same loop as a Conversation: the supervisor's decisions and the workers' replies are posted
 * on a `StreamingChannel`, with the same result as directly. Naming an unknown
 * worker fails with `UnknownParticipantError`. After `maxSteps` delegations the supervisor has one last
 * turn, told that no delegation is left (`state.remainingSteps` is 0), to answer from the workers'
 * results; a delegation on that turn escalates the run, and no worker runs it.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns } from '@rxagents/patterns';
 *
 * let asked = 0;
 * const lead = defineAgent('lead', async () => (asked++ === 0 ? 'DELEGATE researcher: find the numbers' : 'FINAL: revenue grew 12%'));
 * const researcher = defineAgent('researcher', async () => 'Q3 revenue +12%');
 * const result = await Patterns.supervisor({ supervisor: lead, workers: [researcher] }).execute('Summarise Q3');
 * console.log(result.output); // revenue grew 12%
 * ```
 */
export class SupervisorBuilder extends PatternBuilder<SupervisorState> {
  readonly #settings: z.output<typeof SupervisorOptionsSchema>;
  readonly #channel: ChannelBackendOptions<PostedMessage> | undefined;

  /** Validates `options`; prefer {@link Patterns.supervisor}. @throws `ConfigError`. */
  constructor(options: SupervisorOptions, channel?: ChannelBackendOptions<PostedMessage>) {
    super();
    this.#settings = parseOnce(SupervisorOptionsSchema, options, 'Supervisor options', (parsed) => ({ ...parsed, workers: [...options.workers] }));
    this.#channel = channel === undefined ? undefined : channelSettings(channel, '.overChannel() options');
  }

  /** The same supervision as a Conversation over a `StreamingChannel`: every decision and every worker's reply is a message. */
  overChannel(options: ChannelBackendOptions<PostedMessage> = {}): SupervisorBuilder {
    return new SupervisorBuilder(this.#settings, channelSettings(options, '.overChannel() options'));
  }

  build(): ExecutionModel<SupervisorState> {
    const { supervisor, workers, maxSteps, prompt = defaultPrompt, agentTimeout, timeout } = this.#settings;
    const byId = new Map(workers.map((worker) => [worker.id, worker] as const));
    const ids = workers.map((worker) => worker.id);
    const longestFirst = [...ids].sort((a, b) => b.length - a.length);
    // Each state's `steps` is a view of one shared log (O(1) per step), built into a frozen array when read.
    const stateOf = (fields: Omit<SupervisorState, 'steps' | 'remainingSteps'>, log: AppendLog<SupervisorStep>): SupervisorState => {
      // The keys in the interface's order, as an object literal would have them; `steps` is the shared getter.
      const state = { task: fields.task } as { -readonly [K in keyof SupervisorState]: SupervisorState[K] };
      Object.defineProperty(state, 'steps', STEPS);
      state.remainingSteps = maxSteps - log.length;
      state.pending = fields.pending;
      state.final = fields.final;
      state.error = fields.error;
      return markLog(state, log);
    };
    const logOf = (state: SupervisorState): AppendLog<SupervisorStep> => markedLog<SupervisorStep>(state) ?? AppendLog.of(state.steps);
    const next = (state: SupervisorState, change: Partial<Omit<SupervisorState, 'steps' | 'remainingSteps'>>, log = logOf(state)): SupervisorState =>
      stateOf({ task: state.task, pending: state.pending, final: state.final, error: state.error, ...change }, log);
    const model = assembleModel<SupervisorState>({
      pattern: 'supervisor',
      agents: [supervisor, ...workers],
      initialState: (task) => stateOf({ task, pending: undefined, final: undefined, error: undefined }, AppendLog.empty()),
      route: (state) => (state.pending === undefined ? [supervisor] : [byId.get(state.pending.worker) as AgentRef]),
      prompt: (state, agent) => (agent === supervisor ? prompt(state, workers) : (state.pending?.instruction ?? state.task)),
      aggregate: (state, result) => {
        if (!result.success) return state;
        if (state.pending !== undefined) {
          return next(state, { pending: undefined }, logOf(state).append({ ...state.pending, output: result.output }));
        }
        const delegation = parseDelegation(result.output, longestFirst);
        if (delegation === undefined) {
          const answer = result.output.replace(FINAL, '').trim();
          return next(state, answer === '' ? { error: new EmptyAnswerError(supervisor.id, result.output) } : { final: answer });
        }
        if ('unknown' in delegation) return next(state, { error: new UnknownParticipantError(delegation.unknown, ids) });
        return next(state, { pending: delegation });
      },
      termination: Terminations.of(`supervisor(maxSteps ${maxSteps})`, ({ state }) => {
        if (state.error !== undefined) return { type: 'failed', reason: (state.error as Error).message, error: state.error };
        const atLimit = logOf(state).length >= maxSteps;
        if (state.final !== undefined) {
          return { type: 'complete', reason: atLimit ? `${supervisor.id} gave a final answer at the limit of ${maxSteps} delegations` : `${supervisor.id} gave a final answer` };
        }
        // At the limit the supervisor still has its last turn (route asks it, as nothing is pending);
        // a delegation decided on that turn is never run.
        if (state.pending !== undefined && atLimit) return { type: 'escalate', reason: `no final answer after ${maxSteps} delegations` };
        return { type: 'continue' };
      }),
      output: (state) => state.final ?? '',
      failOnAgentError: true,
      concurrency: 1,
      scheduler: this.#settings.scheduler ?? asyncScheduler,
      ...(agentTimeout === undefined ? {} : { agentTimeout }),
      ...(timeout === undefined ? {} : { timeout }),
    });
    return this.#channel === undefined ? model : attachBackend(model, channelBackend(modelConversation(model), this.#channel));
  }
}
