import { configRules, parseConfig } from '@rxagents/core';
import type { AgentRef } from '../agents/AgentRef';
import { agentList } from '../agents/agentList';
import type { ChannelExecutionBackend } from '../channel/ChannelBackend';
import { assembleModel, attachBackend } from './assembleModel';
import { type ExecutionBackend, type ExecutionModel, type ExecutionModelDefinition, ExecutionModelSchema } from './ExecutionModel';

// Builds validated ExecutionModels; exported from the package as the module namespace `ExecutionModel`.

/**
 * Validates a definition, applies the defaults (`concurrency` 1, `failOnAgentError` false,
 * `asyncScheduler`) and freezes the model.
 *
 * @throws `ConfigError` naming the field, e.g. `ExecutionModel: concurrency must be a positive integer, got 0`.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { ExecutionModel, TerminationCondition } from '@rxagents/patterns';
 *
 * const echo = defineAgent('echo', async (input) => input);
 * const model = ExecutionModel.create<string>({
 *   pattern: 'echo-once',
 *   agents: [echo],
 *   initialState: (input) => input,
 *   route: () => [echo],
 *   prompt: (state) => state,
 *   aggregate: (state, result) => (result.success ? result.output : state),
 *   termination: TerminationCondition.maxIterations(1),
 *   output: (state) => state,
 * });
 * ```
 */
export function create<T>(definition: ExecutionModelDefinition<T>): ExecutionModel<T> {
  const parsed = parseConfig(ExecutionModelSchema, definition, 'ExecutionModel');
  return assembleModel({ ...definition, failOnAgentError: parsed.failOnAgentError, concurrency: parsed.concurrency, scheduler: parsed.scheduler });
}

/**
 * A copy of `model` that runs on `backend`.
 *
 * @remarks
 * Checked here, once: `backend` is a function, and a Conversation backend (made by `ChannelBackend` with
 * a conversation strategy) gets a model whose agents each appear once (a conversation gives each
 * participant one voice).
 *
 * @throws `ConfigError` when either check fails.
 *
 * @example
 * ```ts
 * // no-run: a fragment: `model` is any model made with ExecutionModel.create
 * import { ExecutionModel, OrchestratedDriver, type ExecutionModel as Model } from '@rxagents/patterns';
 *
 * declare const model: Model<string>;
 * const direct = ExecutionModel.withBackend(model, OrchestratedDriver);
 * ```
 */
export function withBackend<T>(model: ExecutionModel<T>, backend: ExecutionBackend<T>): ExecutionModel<T> {
  parseConfig(configRules.function(), backend, 'ExecutionModel.withBackend backend');
  const strategy = (backend as Partial<ChannelExecutionBackend<T>>).strategy;
  // A conversation gives each participant one voice: the same agent listed twice would speak twice a round.
  if (strategy?.kind === 'conversation') parseConfig(ConversationParticipants, model.agents, 'ExecutionModel.withBackend: a conversation\'s participants');
  return attachBackend(model, backend);
}

const ConversationParticipants = agentList<AgentRef>(1, 'must list at least one participant');
