import type { Observable } from 'rxjs';
import * as z from 'zod';
import { askForInput, ConfigError, configRules, parseConfig, type Agent, type ChatOptions } from '@rxagents/core';
import { checkChatCall } from './internal/checkChatCall';

/**
 * Options of {@link humanAgent}.
 *
 * @example
 * ```ts
 * import { humanAgent, type HumanAgentOptions } from '@rxagents/web';
 *
 * const options: HumanAgentOptions = { role: 'Editor', maxTextLength: 2_000, prompt: (input) => `Your turn: ${input}` };
 * const editor = humanAgent('editor', options);
 * console.log(editor.role); // Editor
 * ```
 */
export interface HumanAgentOptions {
  /** Human-readable name. */
  readonly name?: string;
  /** The person's role (woven into handoff descriptions, as for any agent). */
  readonly role?: string;
  /** The person's goal. */
  readonly goal?: string;
  /** Turns the agent's input into what the person is asked. Default: the input itself. */
  readonly prompt?: (input: string) => string;
  /** The longest answer accepted, in characters. Default 10,000. */
  readonly maxTextLength?: number;
}

/**
 * An {@link Agent} whose replies come from a person: {@link humanAgent}'s result. It is answered as any
 * input interrupt is (a run registry's `answer` or `handleAnswer`, or `answerInterrupt`).
 *
 * @example
 * ```ts
 * import { humanAgent, type HumanAgent } from '@rxagents/web';
 *
 * const reviewer: HumanAgent = humanAgent('reviewer', { role: 'Reviewer' });
 * console.log(reviewer.id, reviewer.role); // reviewer Reviewer
 * ```
 */
export type HumanAgent = Agent;

const HumanAgentOptionsSchema = z.strictObject({
  name: z.string({ error: 'must be a string' }).optional(),
  role: z.string({ error: 'must be a string' }).optional(),
  goal: z.string({ error: 'must be a string' }).optional(),
  prompt: configRules.function().optional(),
  maxTextLength: configRules.positiveInt().default(10_000),
});

/**
 * Makes an agent whose replies come from a person: each call asks, as an input interrupt of its run,
 * and replies with the answer.
 *
 * @remarks
 * Each call asks `askForInput(run, prompt(input), { schema })` in the call's run (`ChatOptions.run`),
 * where the schema is a string of at most `maxTextLength` characters: the run says an `interrupt` event
 * (`kind: 'input'`, the question, a fresh unguessable `interruptId`), and the person's answer is the
 * call's reply, in one chunk. A page answers through the run registry that holds the run
 * (`registry.handleAnswer(runId, request)` with `{ interruptId, answer }`), the server's code through
 * `registry.answer` or core's `answerInterrupt`; an answer that is not such a string is refused
 * (`InterruptAnswerError`) and the question keeps waiting. Open questions are the run's `interrupt`
 * events without their `interrupt-end` (core's `pendingInterrupts(runId)` lists them in this process).
 *
 * In a durable run the question is journaled: the server may restart while it waits, and the resumed run
 * asks it again under the same `interruptId`, so a page still showing it can answer. A call that ends
 * first (cancelled, or its `timeout` passed) closes the question. A call outside any run is refused
 * with a `ConfigError`: nobody could be asked.
 *
 * Use it wherever an agent goes: as a handoff target, a debate participant, a step of a sequence.
 *
 * @param id - The agent's id (not blank).
 * @param options - Descriptions, the prompt to show and the longest answer.
 * @returns The agent.
 * @throws `ConfigError` for a blank id or a bad option.
 *
 * @example
 * ```ts
 * import { answerInterrupt, invoke$, observeRun } from '@rxagents/core';
 * import { humanAgent } from '@rxagents/web';
 *
 * const reviewer = humanAgent('reviewer', { prompt: (draft) => `Approve this draft? ${draft}` });
 * // A page watching the run sees the `interrupt` event and posts { interruptId, answer } to a route
 * // calling `registry.handleAnswer(runId, request)`; here the answer comes straight away.
 * observeRun('review', 'Release notes v2', (run) => invoke$(reviewer, 'Release notes v2', { run })).subscribe((event) => {
 *   if (event.type === 'interrupt') queueMicrotask(() => answerInterrupt(event.runId, event.interruptId, 'Approved'));
 *   if (event.type === 'run-end' && event.parentCallId === null) console.log(event.output); // Approved
 * });
 * ```
 */
export function humanAgent(id: string, options: HumanAgentOptions = {}): HumanAgent {
  const agentId = parseConfig(configRules.id(), id, 'humanAgent id');
  const { name, role, goal, prompt, maxTextLength } = parseConfig(HumanAgentOptionsSchema, options, 'humanAgent options');
  const toPrompt = (prompt as HumanAgentOptions['prompt']) ?? ((input: string) => input);
  const schema = z.string().max(maxTextLength, `must be at most ${maxTextLength} characters`);

  const chat = (input: string, options: ChatOptions): Observable<string> => {
    checkChatCall(agentId, input, options);
    const { run } = options;
    if (run === undefined) {
      throw new ConfigError(`${agentId}.chat`, [
        { path: 'options.run', rule: 'must be the run of the call: a human agent asks a person in its run, so call it inside one (observeRun, a run registry)', received: run },
      ]);
    }
    return askForInput(run, toPrompt(input), { schema });
  };

  const agent: HumanAgent = {
    id: agentId,
    ...(name === undefined ? {} : { name }),
    ...(role === undefined ? {} : { role }),
    ...(goal === undefined ? {} : { goal }),
    chat,
  };
  return Object.freeze(agent);
}
