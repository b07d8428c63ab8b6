import * as z from 'zod';
import { configRules } from '@rxagents/core';

/**
 * Options of {@link postAnswer}: where to send which answer to which question.
 *
 * @example
 * ```ts
 * import type { PostAnswerOptions } from '@rxagents/react';
 *
 * const options: PostAnswerOptions = { url: '/runs/abc/answers', interruptId: 'f3b1…', answer: { approved: true } };
 * console.log(options.url); // /runs/abc/answers
 * ```
 */
export interface PostAnswerOptions {
  /** The run's answer route: a run registry's `handleAnswer`, for example `/runs/:runId/answers`. */
  readonly url: string | URL;
  /** The question's id, from its `interrupt` event. */
  readonly interruptId: string;
  /** The answer, any JSON value the question's `schema` accepts (an approval: `{ approved, reason? }`). */
  readonly answer: unknown;
  /** The `fetch` to use (for credentials, headers or tests). Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
  /** Aborting it abandons the request: the Promise rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** The longest `interruptId` sent, in characters: a run registry refuses a longer one. */
const MAX_ID_LENGTH = 256;

/**
 * The rules of {@link PostAnswerOptions}, checked by {@link postAnswer}: a non-empty `url`, an
 * `interruptId` of 1 to 256 characters, and an `answer` that is a JSON value.
 *
 * @example
 * ```ts
 * import { PostAnswerOptionsSchema } from '@rxagents/react';
 *
 * const checked = PostAnswerOptionsSchema.safeParse({ url: '/runs/abc/answers', interruptId: 'id-1', answer: () => 'yes' });
 * console.log(checked.success); // false
 * ```
 */
export const PostAnswerOptionsSchema = z.strictObject({
  url: z.union([z.string().min(1), z.instanceof(URL)], { error: 'must be a non-empty string or a URL' }),
  interruptId: configRules.nonEmptyString().max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`),
  answer: z.unknown().refine((answer) => answer !== undefined && isJson(answer), { error: 'must be a JSON value (no undefined, function, bigint or cycle)' }),
  fetch: configRules.function<typeof fetch>().optional(),
  signal: configRules.abortSignal().optional(),
});

function isJson(value: unknown): boolean {
  try {
    return JSON.stringify(value) !== undefined;
  } catch {
    return false;
  }
}
