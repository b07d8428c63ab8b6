import { catchError, defer, map, of, type SchedulerLike } from 'rxjs';
import { type Agent, configRules, parseConfig, invoke$ } from '@rxagents/core';
import { z } from 'zod';
import { agentRule } from '../agents/agentList';
import { type ConversationState, lastMessage, messageCount } from '../conversation/ConversationState';
import * as ConversationStates from '../conversation/conversationStates';
import type { TerminationCondition } from './TerminationCondition';
import { CONTINUE } from './TerminationDecision';

/**
 * Options of `TerminationCondition.judgeConvergence`.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { ConversationState, TerminationCondition, type JudgeConvergenceOptions } from '@rxagents/patterns';
 *
 * const options: JudgeConvergenceOptions = {
 *   maxIterations: 5,
 *   prompt: (state) => `Do they agree? Answer 1 to 10.\n${ConversationState.transcript(state)}`,
 *   predicate: (verdict) => Number.parseInt(verdict, 10) >= 8,
 *   timeout: 20_000,
 * };
 * const converged = TerminationCondition.judgeConvergence(defineAgent('judge', async () => '9'), options);
 * ```
 */
export interface JudgeConvergenceOptions {
  /** After this many completed rounds without convergence, `escalate`. Unset: ask the judge forever. */
  readonly maxIterations?: number;
  /** Reads the judge's verdict: `true` means converged. Default: the verdict starts with `CONVERGED`. */
  readonly predicate?: (verdict: string, state: ConversationState) => boolean;
  /** What the judge is asked. Default: the topic, the transcript, and "answer CONVERGED or CONTINUE". */
  readonly prompt?: (state: ConversationState) => string;
  /** Per-verdict timeout in ms; a judge that times out fails the run; up to `MAX_DELAY_MS` (about 24.8 days), `Infinity` for none. */
  readonly timeout?: number;
  /** The clock for `timeout`. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * The zod schema of {@link JudgeConvergenceOptions}.
 *
 * @remarks
 * Strict: an unknown key is an error. `judgeConvergence` validates with it.
 *
 * @example
 * ```ts
 * import { defineAgent, parseConfig } from '@rxagents/core';
 * import { JudgeConvergenceOptionsSchema, TerminationCondition } from '@rxagents/patterns';
 *
 * const limits = parseConfig(JudgeConvergenceOptionsSchema, JSON.parse('{ "maxIterations": 4, "timeout": 30000 }'), 'Judge options');
 * const converged = TerminationCondition.judgeConvergence(defineAgent('judge', async () => 'CONTINUE'), limits);
 * console.log(converged.description); // judgeConvergence(judge, 4)
 * ```
 */
export const JudgeConvergenceOptionsSchema = z.strictObject({
  maxIterations: configRules.positiveInt().optional(),
  predicate: configRules.function<(verdict: string, state: ConversationState) => boolean>().optional(),
  prompt: configRules.function<(state: ConversationState) => string>().optional(),
  timeout: configRules.timeoutMs().optional(),
  scheduler: configRules.scheduler().optional(),
});

const defaultJudgePrompt = (state: ConversationState): string =>
  [
    `You judge a discussion. Topic: ${state.topic}`,
    'Transcript:',
    ConversationStates.transcript(state),
    'Have the participants converged? Answer CONVERGED or CONTINUE, then one sentence.',
  ].join('\n');

const defaultPredicate = (verdict: string): boolean => /^\s*CONVERGED\b/i.test(verdict);

// Conditions that read a ConversationState; exported through the `TerminationCondition` namespace.

/**
 * Completes when the last message contains `text` (AutoGen's `TextMentionTermination`).
 *
 * @example
 * ```ts
 * import { TerminationCondition } from '@rxagents/patterns';
 *
 * const done = TerminationCondition.textMention('TERMINATE');
 * ```
 */
export function textMention(text: string, from?: string): TerminationCondition<ConversationState> {
  const needle = parseConfig(configRules.nonEmptyString(), text, 'textMention');
  if (from !== undefined) parseConfig(configRules.id(), from, 'textMention from');
  return {
    description: `textMention(${JSON.stringify(needle)})`,
    evaluate: ({ state }) => {
      const last = lastMessage(state);
      if (last === undefined || (from !== undefined && last.speaker !== from) || !last.content.includes(needle)) return CONTINUE;
      return { type: 'complete', reason: `${last.speaker} said ${JSON.stringify(needle)}` };
    },
  };
}

/**
 * Completes once the transcript holds `max` messages.
 *
 * @example
 * ```ts
 * import { TerminationCondition } from '@rxagents/patterns';
 *
 * const short = TerminationCondition.maxMessages(6);
 * ```
 */
export function maxMessages(max: number): TerminationCondition<ConversationState> {
  const limit = parseConfig(configRules.positiveInt(), max, 'maxMessages');
  return {
    description: `maxMessages(${limit})`,
    evaluate: ({ state }) => (messageCount(state) >= limit ? { type: 'complete', reason: `reached ${limit} messages` } : CONTINUE),
  };
}

/**
 * Asks a judge agent, after every completed round, whether the participants have converged.
 *
 * @remarks
 * The judge is only consulted when the snapshot's `roundComplete` is true, so a three-agent round robin
 * costs one verdict per three turns. A verdict the predicate accepts completes the run; after
 * `maxIterations` rounds without one, the run escalates. A judge that fails or times out fails the run,
 * and so does a `prompt` or `predicate` that throws or gives the wrong type (as the judge failing).
 * The judge is called through core's `invoke$`, so cancelling the run aborts it; in a watched run (the
 * snapshot's `run`) its call and its tokens appear in the run's events like any agent's.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { TerminationCondition } from '@rxagents/patterns';
 *
 * const judge = defineAgent('judge', async () => 'CONVERGED: they agree on a hybrid plan.');
 * const converged = TerminationCondition.judgeConvergence(judge, { maxIterations: 4 });
 * ```
 */
export function judgeConvergence(judge: Agent, options: JudgeConvergenceOptions = {}): TerminationCondition<ConversationState> {
  parseConfig(agentRule(), judge, 'judgeConvergence judge');
  const { maxIterations, predicate = defaultPredicate, prompt = defaultJudgePrompt, timeout, scheduler } = parseConfig(
    JudgeConvergenceOptionsSchema,
    options,
    'judgeConvergence options',
  );
  return {
    description: `judgeConvergence(${judge.id}${maxIterations === undefined ? '' : `, ${maxIterations}`})`,
    evaluate: ({ state, iteration, run }) => {
      if (!state.roundComplete) return CONTINUE;
      // Inside `defer`, so a prompt that throws or gives no string fails the run as the judge failing, as the predicate does.
      return defer(() => {
        const question: unknown = prompt(state);
        if (typeof question !== 'string') throw new TypeError(`judgeConvergence(${judge.id}): prompt gave ${String(question)}; return the text to ask the judge`);
        return invoke$(judge, question, { ...(timeout === undefined ? {} : { timeout }), ...(scheduler === undefined ? {} : { scheduler }), ...(run === undefined ? {} : { run }) });
      }).pipe(
        map((verdict) => {
          const converged: unknown = predicate(verdict, state);
          if (typeof converged !== 'boolean') throw new TypeError(`judgeConvergence(${judge.id}): predicate gave ${String(converged)}; return true (converged) or false`);
          if (converged) return { type: 'complete' as const, reason: `${judge.id}: ${verdict}` };
          if (maxIterations !== undefined && iteration >= maxIterations) {
            return { type: 'escalate' as const, reason: `${judge.id} saw no convergence in ${maxIterations} rounds` };
          }
          return CONTINUE;
        }),
        catchError((error: unknown) => of({ type: 'failed' as const, reason: `judge ${judge.id} failed`, error })),
      );
    },
  };
}
