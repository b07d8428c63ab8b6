import { defer, forkJoin, from, last, map, mergeMap, type Observable, type ObservableInput, of, throwError } from 'rxjs';
import { z } from 'zod';
import { configRules, invoke$, observeRun, parseConfig, preview, type Agent, type AgentCallOptions, type ChatOptions, type Message, type RunEvent, type RunEventsOptions } from '@rxagents/core';
import { currentHandoffChain } from '../guards/currentHandoffChain';
import { HandoffContractError } from '../errors/HandoffContractError';
import { HandoffRoutingError } from '../errors/HandoffRoutingError';
import { HandoffValidationError } from '../errors/HandoffValidationError';
import type { Handoff } from '../handoff/Handoff';
import type { HandoffEnabledContext } from '../handoff/HandoffEnabled';
import type { HandoffOutcome } from '../handoff/HandoffOutcome';
import { splitEventsOptions } from '../internal/rules';
import { normalizeHandoffs, type HandoffSpec } from './normalizeHandoffs';
import type { ToolCallingModel, ToolCallingResponse } from '../tools/ToolCallingModel';
import { checkChatCall } from '../internal/checkChatCall';

/**
 * The settings of {@link routingAgent}.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import type { RoutingAgentConfig } from '@rxagents/handoff';
 *
 * const config: RoutingAgentConfig = { id: 'assistant', instructions: 'You are a helpful assistant', handoffs: [defineAgent('billing', async () => 'paid')] };
 * ```
 */
export interface RoutingAgentConfig {
  readonly id: string;
  readonly name?: string;
  readonly role?: string;
  readonly goal?: string;
  /** The system prompt the model gets. */
  readonly instructions?: string;
  /** Where it may hand off: agents, `{ agent, description }` configs or `handoff()` instances. */
  readonly handoffs: readonly HandoffSpec[];
  /** Chooses a handoff tool when no condition matched; without one, an unmatched input fails. */
  readonly model?: ToolCallingModel;
}

/**
 * The zod schema of {@link RoutingAgentConfig}.
 *
 * @example
 * ```ts
 * import { RoutingAgentConfigSchema } from '@rxagents/handoff';
 *
 * console.log(RoutingAgentConfigSchema.safeParse({ id: 'assistant', handoffs: [] }).success); // true
 * ```
 */
export const RoutingAgentConfigSchema = z.strictObject({
  id: configRules.id(),
  name: z.string({ error: 'must be a string' }).optional(),
  role: z.string({ error: 'must be a string' }).optional(),
  goal: z.string({ error: 'must be a string' }).optional(),
  instructions: z.string({ error: 'must be a string' }).optional(),
  handoffs: z.array(z.unknown()).readonly(),
  model: configRules.function<ToolCallingModel>().optional(),
});

/**
 * An agent that hands off: see {@link routingAgent}.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { routingAgent, type RoutingAgent } from '@rxagents/handoff';
 *
 * const assistant: RoutingAgent = routingAgent({ id: 'assistant', handoffs: [defineAgent('billing', async () => 'paid')] });
 * console.log(assistant.handoffs[0]?.toolName); // transfer_to_billing
 * ```
 */
export interface RoutingAgent extends Agent {
  /** Its handoffs, normalised. */
  readonly handoffs: readonly Handoff[];
  readonly instructions: string | undefined;
  /**
   * One call of this agent as a new run named `routing`, whose events you get as they happen: `run-start`,
   * the agent's `call-start`, under it the chosen `handoff` node (its `handoff` event and the target's call,
   * a `text-delta` per chunk as the target emits it), the agent's `call-end` (or `call-error` with the
   * error serialised: no route, a guard, a failed target), then `run-end` with the reply. The same call as
   * `invoke$(agent, input, options)`; inside a run of your own, pass the run to that call instead.
   *
   * With `store` and `runId` the run is durable: journaled in the store, and resumed from its journal when the store already holds `runId` (finished agent calls are answered from it; see `docs/durable.md`).
   *
   * @param input - What the agent is asked.
   * @param options - As for an agent call (`invoke$`), without `run`; `scheduler` is also the clock of every event's `at`.
   * @returns The run's events.
   * @throws {@link @rxagents/core!ConfigError | ConfigError} when `input` or an option is invalid.
   */
  events$(input: string, options?: Omit<AgentCallOptions, 'run'> & RunEventsOptions): Observable<RunEvent>;
}

/**
 * An {@link Agent} that hands each input off to the right specialist, as PraisonAI's `handoffs` option.
 *
 * @remarks
 * For each `chat(input)`, only the handoffs enabled for the call count: each handoff's `isEnabled` (a
 * boolean, or a predicate asked with the call's input, history, metadata, chain and run; see
 * {@link HandoffEnabledContext}) is asked first, and a disabled one is neither matched nor offered to the
 * model. Then the first handoff whose `condition` matches the input (and the call's
 * history and metadata) takes it, with no model. Otherwise, with a `model`, it offers every handoff as a
 * tool (`transfer_to_*`) together with the instructions, history and input, and executes the handoff the
 * model calls, passing the call's arguments (checked against that handoff's `inputSchema`); a model that
 * answers without a tool call is the reply (the routing agent answers itself). With neither a matching
 * condition nor a model, it fails with {@link HandoffRoutingError}; a condition that answers anything but a
 * boolean, or a model that answers no `{ content?, toolCalls? }` object (a bare string, `undefined`), fails
 * the call with {@link HandoffContractError}. The target's reply is the routing
 * agent's reply; a handoff that fails makes the call fail. History in `ChatOptions.context` is passed on,
 * and each handoff's context policy selects from it. Called inside a run (`ChatOptions.run`, as any
 * agent call with a `run` option gives it), the chosen handoff reports as a `handoff` node under the
 * agent's own call, with the target's call (deltas as they come) under it; `events$` runs one call as a
 * run of its own.
 *
 * @throws {@link @rxagents/core!ConfigError | ConfigError} when the config or a handoff entry is invalid.
 *
 * @example
 * ```ts
 * import { defineAgent, lastValue, invoke$ } from '@rxagents/core';
 * import { handoff, handoffFilters, routingAgent } from '@rxagents/handoff';
 *
 * const billingAgent = defineAgent({ id: 'billing', name: 'Billing', chat: async () => 'Billing here: your invoice is paid.' });
 * const mainAgent = routingAgent({
 *   id: 'assistant',
 *   name: 'Assistant',
 *   instructions: 'You are a helpful assistant',
 *   handoffs: [handoff({ agent: billingAgent, description: 'For billing', condition: handoffFilters.topic(['invoice', 'payment', 'refund']) })],
 * });
 * console.log(await lastValue(invoke$(mainAgent, 'I have a question about my invoice'))); // Billing here: your invoice is paid.
 * ```
 */
export function routingAgent(config: RoutingAgentConfig): RoutingAgent {
  const parsed = parseConfig(RoutingAgentConfigSchema, config, 'routingAgent config');
  const handoffs = Object.freeze(normalizeHandoffs(config.handoffs));
  const allByTool = new Map(handoffs.map((handoff) => [handoff.toolName, handoff]));
  const { model, instructions } = config;

  const agent: RoutingAgent = {
    id: parsed.id,
    ...(parsed.name === undefined ? {} : { name: parsed.name }),
    ...(parsed.role === undefined ? {} : { role: parsed.role }),
    ...(parsed.goal === undefined ? {} : { goal: parsed.goal }),
    handoffs,
    instructions,
    chat: (input: string, options: ChatOptions): Observable<string> => {
      checkChatCall(parsed.id, input, options);
      return defer(() => {
        const history = options.context ?? [];
        const metadata = options.metadata ?? {};
        const asked = { source: agent, input, messages: history, metadata, handoffChain: currentHandoffChain(), run: options.run };
        return enabledHandoffs$(handoffs, asked).pipe(mergeMap((enabled) => route(enabled, input, options, history, metadata)));
      });
    },
    events$: (input: string, eventsOptions: Omit<AgentCallOptions, 'run'> & RunEventsOptions = {}): Observable<RunEvent> => {
      const { run: runOptions, options = {} } = splitEventsOptions(`routing agent "${parsed.id}" events options`, eventsOptions);
      // Refuses bad input or options now rather than as a silent run.
      invoke$(agent, input, options);
      return observeRun('routing', input, (run) => invoke$(agent, input, { ...options, run }), { ...runOptions, scheduler: options.scheduler });
    },
  };

  /** One routing call among the handoffs enabled for it: a matching condition, else the model's choice. */
  const route = (enabled: readonly Handoff[], input: string, options: ChatOptions, history: readonly Message[], metadata: Readonly<Record<string, unknown>>): Observable<string> => {
    const run = options.run === undefined ? undefined : { run: options.run };
    const hand = (handoff: Handoff, args?: string): Observable<string> =>
      handoff
        .execute$(agent, { input, messages: history, metadata, ...(args === undefined ? {} : { arguments: args }) }, run)
        .pipe(mergeMap(outcomeToReply));
    const matched = enabled.find((handoff) => handoff.matches({ input, messages: history, metadata }));
    if (matched !== undefined) return hand(matched);
    if (model === undefined) {
      return throwError(() => new HandoffRoutingError(parsed.id, 'no handoff condition matched the input and no model is configured to choose'));
    }
    const messages: Message[] = [
      ...(instructions === undefined ? [] : [{ role: 'system' as const, content: instructions }]),
      ...history,
      { role: 'user', content: input },
    ];
    const tools = enabled.map((handoff) => handoff.toolDefinition());
    const byTool = enabled === handoffs ? allByTool : new Map(enabled.map((handoff) => [handoff.toolName, handoff]));
    const culprit = `the model of routing agent "${parsed.id}"`;
    const answer: unknown = model({ messages, tools, signal: options.signal, agentId: parsed.id, ...(options.run === undefined ? {} : { run: options.run }) });
    if (typeof answer !== 'object' || answer === null) {
      return throwError(() => new HandoffContractError(culprit, `returned ${preview(answer)}; it must return a Promise, Observable or AsyncIterable of a response`, answer));
    }
    return from(answer as ObservableInput<ToolCallingResponse>).pipe(
      last(undefined, null),
      mergeMap((response) => {
        if (response === null) return throwError(() => new HandoffRoutingError(parsed.id, 'the model completed without an answer'));
        const malformed = malformedResponse(response);
        if (malformed !== undefined) return throwError(() => new HandoffContractError(culprit, malformed, response));
        const calls = response.toolCalls ?? [];
        const call = calls.find((candidate) => byTool.has(candidate.name));
        if (call !== undefined) return hand(byTool.get(call.name) as Handoff, call.arguments);
        if (calls.length > 0) {
          return throwError(
            () => new HandoffValidationError(previewName(calls[0]?.name ?? 'tool'), [`the model called ${namesOf(calls)}, but only ${[...byTool.keys()].join(', ') || 'no tools'} are offered`], undefined, { sourceAgentId: parsed.id }),
          );
        }
        return of(response.content ?? '');
      }),
    );
  };

  return Object.freeze(agent);
}

/** What is wrong with a model's response (a tool call that is no `{ name: string }` object, a `content` that is no string), or `undefined`. */
function malformedResponse(response: unknown): string | undefined {
  const shape = 'it must answer { content?: string, toolCalls?: { id, name: string, arguments }[] }';
  if (typeof response !== 'object' || response === null) return `answered ${preview(response)}; ${shape}`;
  const { content, toolCalls } = response as { readonly content?: unknown; readonly toolCalls?: unknown };
  if (content !== undefined && typeof content !== 'string') return `answered content ${preview(content)}; ${shape}`;
  if (toolCalls === undefined) return undefined;
  if (!Array.isArray(toolCalls)) return `answered toolCalls ${preview(toolCalls)}; ${shape}`;
  const index = toolCalls.findIndex((call: unknown) => typeof call !== 'object' || call === null || typeof (call as { name?: unknown }).name !== 'string');
  return index < 0 ? undefined : `answered the tool call ${preview(toolCalls[index])} at index ${index}; ${shape}`;
}

/** The tool names a model called, each cut to a preview and at most five listed: a model's output is never echoed in full. */
function namesOf(calls: readonly { readonly name: string }[]): string {
  const listed = calls.slice(0, 5).map((call) => previewName(call.name));
  return calls.length > listed.length ? `${listed.join(', ')} and ${calls.length - listed.length} more` : listed.join(', ');
}

function previewName(name: string): string {
  return name.length > 80 ? preview(name) : name;
}

/**
 * The handoffs enabled for one call, in their order: all of them at once when none sets `isEnabled` (the
 * common case, no allocation), else each one's `isEnabled` asked with the call, side by side.
 */
function enabledHandoffs$(handoffs: readonly Handoff[], asked: Omit<HandoffEnabledContext, 'target'>): Observable<readonly Handoff[]> {
  if (handoffs.every((handoff) => handoff.config.isEnabled === true)) return of(handoffs);
  return forkJoin(handoffs.map((handoff) => handoff.isEnabled$({ ...asked, target: handoff.agent }))).pipe(
    map((answers) => handoffs.filter((_, index) => answers[index] === true)),
  );
}

function outcomeToReply(outcome: HandoffOutcome): Observable<string> {
  return outcome.success ? of(outcome.output) : throwError(() => outcome.error);
}

