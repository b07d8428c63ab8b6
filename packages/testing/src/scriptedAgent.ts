import { asyncScheduler, defer, type Observable, type SchedulerLike } from 'rxjs';
import type { Agent, ChatOptions } from '@rxagents/core';
import { answerToObservable, type ScriptAnswer } from './ScriptAnswer';

/**
 * Decides whether a {@link ScriptRule} answers an input.
 *
 * @remarks
 * A string matches the input exactly, a RegExp is tested against it, and a function sees the input
 * and the call's {@link ChatOptions} (context, metadata) and returns whether the rule applies.
 *
 * @example
 * ```ts
 * import { scriptedAgent, type ScriptMatcher } from '@rxagents/testing';
 *
 * const exact: ScriptMatcher = 'ping';
 * const aboutMoney: ScriptMatcher = /refund|invoice/i;
 * const followUp: ScriptMatcher = (_input, { context = [] }) => context.length > 0;
 * const router = scriptedAgent('router', [
 *   { match: exact, answer: 'pong' },
 *   { match: aboutMoney, answer: 'billing' },
 *   { match: followUp, answer: 'as I said before...' },
 * ]);
 * ```
 */
export type ScriptMatcher = string | RegExp | ((input: string, options: ChatOptions) => boolean);

/**
 * One rule of a script: when `match` fits the input, answer with `answer`.
 *
 * @remarks
 * `answer` is a {@link ScriptAnswer} or a function of the input and {@link ChatOptions} returning one.
 *
 * @example
 * ```ts
 * import { reply } from '@rxagents/core';
 * import { scriptedAgent, type ScriptRule } from '@rxagents/testing';
 *
 * const rules: ScriptRule[] = [
 *   { match: 'ping', answer: 'pong' },
 *   { match: /^echo /, answer: (input) => input.slice('echo '.length) },
 * ];
 * reply(scriptedAgent('bot', rules), 'echo hi').subscribe(console.log); // hi
 * ```
 */
export interface ScriptRule {
  readonly match: ScriptMatcher;
  readonly answer: ScriptAnswer | ((input: string, options: ChatOptions) => ScriptAnswer);
}

/**
 * A whole script: rules tried in order, a fixed answer, or a function of the input.
 *
 * @remarks
 * The three shapes {@link scriptedAgent} accepts as its second argument. Use `satisfies Script` to
 * check a script declared apart from the call while keeping its precise shape.
 *
 * @example
 * ```ts
 * import { scriptedAgent, type Script } from '@rxagents/testing';
 *
 * const rules = [{ match: 'ping', answer: 'pong' }] satisfies Script;
 * const fixed = { chunks: ['Hel', 'lo'], interval: 10 } satisfies Script;
 * const computed = ((input: string) => input.toUpperCase()) satisfies Script;
 * const agents = [scriptedAgent('rules', rules), scriptedAgent('fixed', fixed), scriptedAgent('computed', computed)];
 * ```
 */
export type Script = readonly ScriptRule[] | ScriptAnswer | ((input: string, options: ChatOptions) => ScriptAnswer);

/**
 * Options of {@link scriptedAgent}.
 *
 * @remarks
 * `scheduler` times the script's delays and marbles; `name`, `role` and `goal` are copied onto the agent.
 *
 * @example
 * ```ts
 * import { VirtualTimeScheduler } from 'rxjs';
 * import { reply } from '@rxagents/core';
 * import { scriptedAgent, type ScriptedAgentOptions } from '@rxagents/testing';
 *
 * const clock = new VirtualTimeScheduler();
 * const options: ScriptedAgentOptions = { scheduler: clock, name: 'Billing', role: 'Billing specialist' };
 * const billing = scriptedAgent('billing', { reply: 'Paid.', delay: 30_000 }, options);
 * reply(billing, 'Status?').subscribe((text) => console.log(clock.now(), text));
 * clock.flush(); // 30000 Paid. (printed at once: the 30 s are virtual)
 * ```
 */
export interface ScriptedAgentOptions {
  /** The clock for delays and marbles. Defaults to `asyncScheduler` (virtualised by `TestScheduler.run`). */
  readonly scheduler?: SchedulerLike;
  readonly name?: string;
  readonly role?: string;
  readonly goal?: string;
}

/**
 * An agent that answers from a script, and remembers what it was asked.
 *
 * @remarks
 * What {@link scriptedAgent} returns: an {@link Agent} plus read-only records for assertions.
 *
 * @example
 * ```ts
 * import { lastValueFrom } from 'rxjs';
 * import { reply } from '@rxagents/core';
 * import { scriptedAgent, type ScriptedAgent } from '@rxagents/testing';
 *
 * const echo: ScriptedAgent = scriptedAgent('echo', (input) => `echo: ${input}`);
 * await lastValueFrom(reply(echo, 'one', { metadata: { taskId: 't1' } }));
 * console.log(echo.inputs, echo.calls[0]?.options.metadata, echo.abortCount); // [ 'one' ] { taskId: 't1' } 0
 * ```
 */
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
/** An agent that answers from any {@link Script}. */
export function scriptedAgent(id: string, script: Script, options?: ScriptedAgentOptions): ScriptedAgent;
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
  // `search` ignores and keeps `lastIndex`: `test` with a /g or /y RegExp would fail every other call.
  if (matcher instanceof RegExp) return input.search(matcher) !== -1;
  return matcher(input, options);
}
