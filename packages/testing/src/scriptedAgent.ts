import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { ConfigError, configRules, preview, type Agent, type ChatOptions, type ConfigIssue } from '@rxagents/core';
import { z } from 'zod';
import { answeringAgent } from './internal/answeringAgent';
import { idIssues, issuesAt, throwIfAny } from './internal/issuesAt';
import { answerIssues, observeAnswer, type ScriptAnswer } from './ScriptAnswer';

/**
 * Decides whether a {@link ScriptRule} answers an input.
 *
 * @remarks
 * A string matches the input exactly, a RegExp is tested against it, and a function sees the input
 * and the call's {@link ChatOptions} (context, metadata) and returns whether the rule applies: `true` or
 * `false`. Anything else (a forgotten `return` gives `undefined`) fails the call, naming the rule, rather
 * than silently falling through to the next rule.
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
 * import { invoke$ } from '@rxagents/core';
 * import { scriptedAgent, type ScriptRule } from '@rxagents/testing';
 *
 * const rules: ScriptRule[] = [
 *   { match: 'ping', answer: 'pong' },
 *   { match: /^echo /, answer: (input) => input.slice('echo '.length) },
 * ];
 * invoke$(scriptedAgent('bot', rules), 'echo hi').subscribe(console.log); // hi
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
 * import { invoke$ } from '@rxagents/core';
 * import { scriptedAgent, type ScriptedAgentOptions } from '@rxagents/testing';
 *
 * const clock = new VirtualTimeScheduler();
 * const options: ScriptedAgentOptions = { scheduler: clock, name: 'Billing', role: 'Billing specialist' };
 * const billing = scriptedAgent('billing', { reply: 'Paid.', delay: 30_000 }, options);
 * invoke$(billing, 'Status?').subscribe((text) => console.log(clock.now(), text));
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
 * import { invoke$ } from '@rxagents/core';
 * import { scriptedAgent, type ScriptedAgent } from '@rxagents/testing';
 *
 * const echo: ScriptedAgent = scriptedAgent('echo', (input) => `echo: ${input}`);
 * await lastValueFrom(invoke$(echo, 'one', { metadata: { taskId: 't1' } }));
 * console.log(echo.inputs, echo.calls[0]?.options.metadata, echo.abortCount); // [ 'one' ] { taskId: 't1' } 0
 * ```
 */
export interface ScriptedAgent extends Agent {
  /** Every input, in call order. */
  readonly inputs: readonly string[];
  /** Every call's options, in call order. */
  readonly calls: readonly { readonly input: string; readonly options: ChatOptions }[];
  /** How many calls were aborted before they finished (an abort after the answer completed is not counted). */
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
 * The id, the script and the options are checked when the agent is built (strict shapes, delays from 0
 * to `MAX_DELAY_MS` or `Infinity` for never); an answer computed by a function is checked when it is
 * computed, and a bad one fails that call (through `stream`, an `AgentError` caused by a `ConfigError`).
 * A matcher or answer function that throws fails the call the same way. A call whose signal is already
 * aborted runs no script code: it fails with the signal's reason and counts as aborted.
 *
 * @throws {@link @rxagents/core!ConfigError | ConfigError} when the id is blank, the script or an answer
 * has an unknown field or a bad delay or marble diagram, or an option is unknown or invalid.
 *
 * @example
 * ```ts
 * import { invoke$ } from '@rxagents/core';
 * import { scriptedAgent } from '@rxagents/testing';
 *
 * const billing = scriptedAgent('billing', [
 *   { match: /invoice/i, answer: { chunks: ['Your invoice ', 'is paid.'], interval: 5 } },
 *   { match: () => true, answer: 'I only handle billing.' },
 * ]);
 * invoke$(billing, 'Where is my invoice?').subscribe(console.log); // Your invoice is paid.
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
  throwIfAny('scriptedAgent', [...idIssues(id), ...scriptIssues(script), ...issuesAt(ScriptedAgentOptionsSchema, options, 'options')]);
  const scheduler = options.scheduler ?? asyncScheduler;
  return answeringAgent(id, options, (input, chatOptions) => observeAnswer(pickAnswer(id, script, input, chatOptions), scheduler));
}

const ScriptedAgentOptionsSchema = z.strictObject(
  {
    scheduler: configRules.scheduler().optional(),
    name: z.string({ error: 'must be a string' }).optional(),
    role: z.string({ error: 'must be a string' }).optional(),
    goal: z.string({ error: 'must be a string' }).optional(),
  },
  { error: 'must be an object' },
);

const RuleSchema = z.strictObject(
  {
    match: z.custom<ScriptMatcher>((value) => typeof value === 'string' || value instanceof RegExp || typeof value === 'function', {
      error: 'must be a string, a RegExp or a function',
    }),
    answer: z.unknown(),
  },
  { error: 'must be a rule { match, answer }' },
);

function scriptIssues(script: unknown): ConfigIssue[] {
  if (typeof script === 'function') return [];
  if (!Array.isArray(script)) return answerIssues(script, 'script');
  return script.flatMap((rule: unknown, index) => {
    const path = `script.${index}`;
    const issues = issuesAt(RuleSchema, rule, path);
    if (typeof rule !== 'object' || rule === null || !('answer' in rule)) return issues;
    const { answer } = rule as { answer: unknown };
    return typeof answer === 'function' ? issues : [...issues, ...answerIssues(answer, `${path}.answer`)];
  });
}

function pickAnswer(id: string, script: Script, input: string, options: ChatOptions): ScriptAnswer {
  if (typeof script === 'function') return checked(id, script(input, options), 'script');
  if (!Array.isArray(script)) return script as ScriptAnswer;
  const rules = script as readonly ScriptRule[];
  for (let index = 0; index < rules.length; index += 1) {
    const rule = rules[index] as ScriptRule;
    if (matches(id, rule.match, input, options, index)) {
      return typeof rule.answer === 'function' ? checked(id, rule.answer(input, options), `script.${index}.answer`) : rule.answer;
    }
  }
  throw new Error(`scriptedAgent "${id}" has no rule for input ${preview(input)}`);
}

// A computed answer is checked like a written one; a forgotten `return` fails the call, naming the function.
function checked(id: string, answer: unknown, source: string): ScriptAnswer {
  throwIfAny(`scriptedAgent "${id}", the answer returned by ${source}`, answerIssues(answer, ''));
  return answer as ScriptAnswer;
}

function matches(id: string, matcher: ScriptMatcher, input: string, options: ChatOptions, index: number): boolean {
  if (typeof matcher === 'string') return matcher === input;
  // `search` ignores and keeps `lastIndex`: `test` with a /g or /y RegExp would fail every other call.
  if (matcher instanceof RegExp) return input.search(matcher) !== -1;
  const verdict: unknown = matcher(input, options);
  if (typeof verdict !== 'boolean') {
    throw new ConfigError(`scriptedAgent "${id}"`, [{ path: `script.${index}.match`, rule: 'must return a boolean (true or false)', received: verdict }]);
  }
  return verdict;
}
