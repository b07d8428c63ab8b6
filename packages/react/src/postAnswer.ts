import * as z from 'zod';
import { parseConfig } from '@rxagents/core';
import { AnswerNotSentError } from './errors/AnswerNotSentError';
import { readJsonBounded } from './internal/readJsonBounded';
import { PostAnswerOptionsSchema, type PostAnswerOptions } from './PostAnswerOptions';

/**
 * What the server made of an answer ({@link postAnswer}): taken (`success: true`), or refused with the
 * server's `status`, `code`, `message` and, for an answer that does not fit the question, its `issues`.
 *
 * @remarks
 * A run registry's codes: `422` `INTERRUPT_ANSWER_INVALID` (the answer does not fit the question's
 * schema, each issue a `{ path, rule }`; the question still waits), `404` `INTERRUPT_NOT_FOUND` (no
 * such open question: answered already, ended, or never this run's), `409` `RUN_HELD_ELSEWHERE`, `413`
 * `PAYLOAD_TOO_LARGE`, `400` `CONFIG_INVALID`. A refusal whose body is not `{ error: { code, message } }`
 * has the code `ANSWER_REFUSED` and a message naming the status.
 *
 * @example
 * ```ts
 * import type { PostAnswerResult } from '@rxagents/react';
 *
 * const say = (result: PostAnswerResult): string =>
 *   result.success ? 'sent' : result.issues.map((issue) => `${issue.path || 'answer'} ${issue.rule}`).join('; ') || result.message;
 * console.log(say({ success: false, status: 422, code: 'INTERRUPT_ANSWER_INVALID', message: 'The answer does not fit the question', issues: [{ path: 'approved', rule: 'must be a boolean' }] })); // approved must be a boolean
 * ```
 */
export type PostAnswerResult =
  | { readonly success: true; readonly status: number }
  | {
      readonly success: false;
      readonly status: number;
      readonly code: string;
      readonly message: string;
      readonly issues: readonly { readonly path: string; readonly rule: string }[];
    };

/** The longest refusal body read, in bytes: a run registry's are a few hundred. */
const MAX_REFUSAL_BYTES = 65_536;

/** A refusal as a run registry writes it; anything else is refused without details. */
const RefusalSchema = z.object({
  error: z.object({
    code: z.string().min(1).max(100),
    message: z.string().max(2_000),
    issues: z
      .array(z.object({ path: z.string().max(1_000), rule: z.string().max(1_000) }))
      .max(100)
      .optional(),
  }),
});

/**
 * Sends a person's answer to one of a run's questions: a `POST` of the JSON `{ interruptId, answer }`
 * to the run's answer route (a run registry's `handleAnswer`), resolving with what the server made of it.
 *
 * @remarks
 * Resolves with `{ success: true, status }` for a `2xx` (a registry answers `204` once the run took the
 * answer; the question's `interrupt-end` then arrives in the run's events), and with the refusal (its
 * `status`, `code`, `message` and `issues`, see {@link PostAnswerResult}) for any other status: a
 * refusal is something to show the person, not an exception. Rejects with {@link AnswerNotSentError}
 * when no response came (`fetch` failed), with the signal's reason when `signal` aborted, and with a
 * `ConfigError` for bad options (an answer that is not JSON among them). The refusal's body is read
 * up to 64 KiB and checked before it is read as one. The answer is not sent again by itself: the person decides.
 *
 * @param options - The answer route's `url`, the `interruptId`, the `answer`, and `fetch` and `signal`.
 * @returns What the server made of the answer.
 *
 * @example
 * ```ts
 * import { postAnswer } from '@rxagents/react';
 *
 * // A stand-in for the server: a run registry's `handleAnswer` behind `/runs/:runId/answers`.
 * const server: typeof fetch = async () => Response.json({ error: { code: 'INTERRUPT_ANSWER_INVALID', message: 'The answer does not fit the question', issues: [{ path: '', rule: 'must be a number' }] } }, { status: 422 });
 * const result = await postAnswer({ url: 'https://example.com/runs/abc/answers', interruptId: 'id-1', answer: 'forty', fetch: server });
 * if (!result.success) console.log(result.status, result.issues[0]?.rule); // 422 must be a number
 * ```
 */
export async function postAnswer(options: PostAnswerOptions): Promise<PostAnswerResult> {
  const { url, interruptId, answer, fetch: doFetch = globalThis.fetch.bind(globalThis), signal } = parseConfig(PostAnswerOptionsSchema, options, 'postAnswer options');
  let response: Response;
  try {
    response = await doFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ interruptId, answer }),
      ...(signal === undefined ? {} : { signal }),
    });
  } catch (error) {
    if (signal?.aborted === true) throw signal.reason;
    throw new AnswerNotSentError(error);
  }
  if (response.ok) {
    void response.body?.cancel().catch(() => undefined);
    return { success: true, status: response.status };
  }
  const body = await readJsonBounded(response, MAX_REFUSAL_BYTES);
  if (signal?.aborted === true) throw signal.reason;
  const refusal = RefusalSchema.safeParse(body);
  if (!refusal.success) return { success: false, status: response.status, code: 'ANSWER_REFUSED', message: `The server refused the answer (${response.status})`, issues: [] };
  const { code, message, issues = [] } = refusal.data.error;
  return { success: false, status: response.status, code, message, issues };
}
