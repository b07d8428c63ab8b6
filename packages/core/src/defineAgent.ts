import type { ObservableInput } from 'rxjs';
import * as z from 'zod';
import * as configRules from './configRules';
import { parseConfig } from './parseConfig';
import type { Agent, AgentMessage, ChatOptions } from './Agent';

/**
 * The settings of {@link defineAgent}.
 *
 * @remarks
 * The same fields as {@link Agent}, as plain data: `id` must be a non-empty string and `chat` a
 * function; `name`, `role` and `goal` are optional descriptions.
 *
 * @example
 * ```ts
 * import { defineAgent, type AgentDefinition } from '@rxagents/core';
 *
 * const definition: AgentDefinition = {
 *   id: 'billing',
 *   role: 'Billing specialist',
 *   goal: 'Resolve invoice questions',
 *   chat: async (input) => `Billing looked at: ${input}`,
 * };
 * const billing = defineAgent(definition);
 * ```
 */
export interface AgentDefinition {
  /** Unique id: any string that is not blank (spaces and any script are fine: `data analyst`, `аналитик`). */
  readonly id: string;
  readonly name?: string;
  readonly role?: string;
  readonly goal?: string;
  /** Answers an input; any form {@link Agent.chat} may return. */
  readonly chat: (input: string, options: ChatOptions) => ObservableInput<string>;
  /** Receives out-of-band messages. */
  readonly receive?: (message: AgentMessage) => void;
}

/**
 * Builds an {@link Agent} from a function.
 *
 * @remarks
 * The returned object is frozen: the toolkit never mutates agents (handoff context travels in
 * {@link ChatOptions.context}). `id` must be a string that is not blank; the definition is strict,
 * so a misspelled field (`nmae`) is a `ConfigError` naming it and the likely intended field.
 *
 * @throws {@link ConfigError} when `id` is blank, `chat` is not a function or a field is unknown.
 *
 * @example
 * ```ts
 * import { defineAgent, invoke$ } from '@rxagents/core';
 *
 * const shouter = defineAgent({ id: 'shouter', role: 'Amplifier', chat: async (input) => input.toUpperCase() });
 * invoke$(shouter, 'hello').subscribe(console.log); // HELLO
 * ```
 */
export function defineAgent(definition: AgentDefinition): Agent;
/** Builds an {@link Agent} from an id and a chat function. */
export function defineAgent(id: string, chat: AgentDefinition['chat'], details?: Omit<AgentDefinition, 'id' | 'chat'>): Agent;
export function defineAgent(
  idOrDefinition: string | AgentDefinition,
  chat?: AgentDefinition['chat'],
  details: Omit<AgentDefinition, 'id' | 'chat'> = {},
): Agent {
  const definition: AgentDefinition =
    typeof idOrDefinition === 'string' ? { ...details, id: idOrDefinition, chat: chat as AgentDefinition['chat'] } : idOrDefinition;
  const parsed = parseConfig(AgentDefinitionSchema, definition, 'Agent definition');
  const agent: Agent = {
    id: parsed.id,
    ...(parsed.name === undefined ? {} : { name: parsed.name }),
    ...(parsed.role === undefined ? {} : { role: parsed.role }),
    ...(parsed.goal === undefined ? {} : { goal: parsed.goal }),
    chat: (input, options) => definition.chat(input, options),
    ...(definition.receive === undefined ? {} : { receive: (message: AgentMessage) => definition.receive?.(message) }),
  };
  return Object.freeze(agent);
}

const AgentDefinitionSchema = z.strictObject({
  id: configRules.id(),
  name: z.string({ error: 'must be a string' }).optional(),
  role: z.string({ error: 'must be a string' }).optional(),
  goal: z.string({ error: 'must be a string' }).optional(),
  chat: configRules.function(),
  receive: configRules.function().optional(),
});
