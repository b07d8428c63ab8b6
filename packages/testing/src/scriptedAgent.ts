import { asyncScheduler, defer, type Observable, type SchedulerLike } from 'rxjs';
import type { Agent, ChatOptions } from '@rxagents/core';
import { answerToObservable, type ScriptAnswer } from './ScriptAnswer';

/** Decides whether a {@link ScriptRule} answers an input. */
export type ScriptMatcher = string | RegExp | ((input: string, options: ChatOptions) => boolean);

/** One rule of a script: when `match` fits the input, answer with `answer`. */
export interface ScriptRule {
  readonly match: ScriptMatcher;
  readonly answer: ScriptAnswer | ((input: string, options: ChatOptions) => ScriptAnswer);
}

/** A whole script: rules tried in order, a fixed answer, or a function of the input. */
export type Script = readonly ScriptRule[] | ScriptAnswer | ((input: string, options: ChatOptions) => ScriptAnswer);

/** Options of {@link scriptedAgent}. */
export interface ScriptedAgentOptions {
  /** The clock for delays and marbles. Defaults to `asyncScheduler` (virtualised by `TestScheduler.run`). */
  readonly scheduler?: SchedulerLike;
  readonly name?: string;
  readonly role?: string;
  readonly goal?: string;
}

/** An agent that answers from a script, and remembers what it was asked. */
export interface ScriptedAgent extends Agent {
  /** Every input, in call order. */
  readonly inputs: readonly string[];
  /** Every call's options, in call order. */
  readonly calls: readonly { readonly input: string; readonly options: ChatOptions }[];
  /** How many calls were aborted before they finished. */
  readonly abortCount: number;
}

/**
 * An agent that answers by exact input, RegExp or function, on a scheduler, for deterministic tests.
 *
 * @remarks
 * Rules are tried in order; the first whose `match` fits answers. An answer is a string, chunks, a
 * marble diagram or an error, optionally delayed (see {@link ScriptAnswer}). Timing runs on `scheduler`,
 * so inside `TestScheduler.run` the agent answers on virtual time. An input no rule matches makes `chat`
 * fail with an error that quotes the input.
 *
 * @example
 * ```ts
 * import { reply } from '@rxagents/core';
 * import { scriptedAgent } from '@rxagents/testing';
 *
 * const billing = scriptedAgent('billing', [
 *   { match: /invoice/i, answer: { chunks: ['Your invoice ', 'is paid.'], interval: 5 } },
 *   { match: () => true, answer: 'I only handle billing.' },
 * ]);
 * reply(billing, 'Where is my invoice?').subscribe(console.log); // Your invoice is paid.
 * ```
 */
export function scriptedAgent(id: string, rules: readonly ScriptRule[], options?: ScriptedAgentOptions): ScriptedAgent;
/** An agent that always answers the same way, or answers from a function of the input. */
export function scriptedAgent(
  id: string,
  answer: ScriptAnswer | ((input: string, options: ChatOptions) => ScriptAnswer),
  options?: ScriptedAgentOptions,
): ScriptedAgent;
export function scriptedAgent(id: string, script: Script, options: ScriptedAgentOptions = {}): ScriptedAgent {
  const scheduler = options.scheduler ?? asyncScheduler;
  const calls: { input: string; options: ChatOptions }[] = [];
  let abortCount = 0;
  const agent: ScriptedAgent = {
    id,
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(options.role === undefined ? {} : { role: options.role }),
    ...(options.goal === undefined ? {} : { goal: options.goal }),
    get inputs() {
      return calls.map((call) => call.input);
    },
    get calls() {
      return calls;
    },
    get abortCount() {
      return abortCount;
    },
    chat(input: string, chatOptions: ChatOptions): Observable<string> {
      calls.push({ input, options: chatOptions });
      chatOptions.signal.addEventListener('abort', () => (abortCount += 1), { once: true });
      return defer(() => answerToObservable(pickAnswer(id, script, input, chatOptions), scheduler));
    },
  };
  return agent;
}

function pickAnswer(id: string, script: Script, input: string, options: ChatOptions): ScriptAnswer {
  if (typeof script === 'function') return script(input, options);
  if (!Array.isArray(script)) return script as ScriptAnswer;
  for (const rule of script as readonly ScriptRule[]) {
    if (matches(rule.match, input, options)) {
      return typeof rule.answer === 'function' ? rule.answer(input, options) : rule.answer;
    }
  }
  throw new Error(`scriptedAgent "${id}" has no rule for input ${JSON.stringify(input)}`);
}

function matches(matcher: ScriptMatcher, input: string, options: ChatOptions): boolean {
  if (typeof matcher === 'string') return matcher === input;
  if (matcher instanceof RegExp) return matcher.test(input);
  return matcher(input, options);
}
