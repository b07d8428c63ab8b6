import * as z from 'zod';
import { ConfigError, configRules, parseConfig, type ApprovalDecision } from '@rxagents/core';
import { approvalAnswersOf, type ApprovalAnswer, type ChatRequestBody, ChatRequestBodySchema } from './approvalAnswersOf';
import { ChatRequestError } from './errors/ChatRequestError';
import { readBounded } from './internal/readBounded';

/**
 * What answers an approval for {@link answerFromChatRequest}: a run registry's `answer`, or a function
 * of yours around `answerInterrupt` (which checks that the interrupt is open in that run).
 *
 * @example
 * ```ts
 * import { answerInterrupt } from '@rxagents/core';
 * import type { AnswerApproval } from '@rxagents/web';
 *
 * const answer: AnswerApproval = async (runId, interruptId, decision) => answerInterrupt(runId, interruptId, decision);
 * console.log(typeof answer); // function
 * ```
 */
export type AnswerApproval = (runId: string, interruptId: string, answer: ApprovalDecision) => Promise<void> | void;

/**
 * Options of {@link answerFromChatRequest}.
 *
 * @example
 * ```ts
 * import type { AnswerFromChatRequestOptions } from '@rxagents/web';
 *
 * const options: AnswerFromChatRequestOptions = { maxBodyBytes: 262_144 };
 * console.log(options.maxBodyBytes); // 262144
 * ```
 */
export interface AnswerFromChatRequestOptions {
  /** The longest body read, in bytes: a chat request carries the whole conversation. Default 1,048,576 (1 MiB). */
  readonly maxBodyBytes?: number;
}

/**
 * The zod schema of {@link AnswerFromChatRequestOptions}.
 *
 * @example
 * ```ts
 * import { AnswerFromChatRequestOptionsSchema } from '@rxagents/web';
 *
 * console.log(AnswerFromChatRequestOptionsSchema.safeParse({ maxBodyBytes: 0 }).success); // false
 * ```
 */
export const AnswerFromChatRequestOptionsSchema = z.strictObject({
  maxBodyBytes: configRules.positiveInt().optional(),
});

/**
 * What {@link answerFromChatRequest} read and answered.
 *
 * @example
 * ```ts
 * import type { AnsweredChatRequest } from '@rxagents/web';
 *
 * const read: AnsweredChatRequest = { body: { messages: [] }, answers: [{ runId: 'r1', interruptId: 'i1', answer: { approved: true } }] };
 * console.log(read.answers.map((answer) => answer.interruptId)); // [ 'i1' ]
 * ```
 */
export interface AnsweredChatRequest {
  /** The chat request's body, checked: the route reads the page's new message, if any, from it. */
  readonly body: ChatRequestBody;
  /** The approvals answered, in order. */
  readonly answers: readonly ApprovalAnswer[];
}

const DEFAULT_MAX_BODY_BYTES = 1_048_576;

/**
 * Reads a chat request (what the `ai` package's chat posts after `addToolApprovalResponse`), answers every
 * approval it carries with `answer`, and returns the body for the rest of the route.
 *
 * @remarks
 * The body is read up to `maxBodyBytes` (reading stops there), parsed as JSON and checked with
 * {@link ChatRequestBodySchema}; the approvals are read by {@link approvalAnswersOf}. Nothing is answered
 * unless the whole body is good. Then each approval is passed to `answer` in turn, awaited: an error it
 * throws (an interrupt that is not open in that run, an answer its schema refuses) stops there and is
 * thrown to the route, which maps it to its response (a run registry's errors, `InterruptNotFoundError`
 * as 404, `InterruptAnswerError` as 422); the approvals before it stay answered. The body is read
 * once: a route that needs fields of its own beyond the chat's (`id`, `messages`, `trigger`,
 * `messageId`) passes `request.clone()` and reads the original itself.
 *
 * @param request - The chat request (`POST`, JSON body).
 * @param answer - Answers one approval: a run registry's `answer`, or yours.
 * @param options - The body's size limit.
 * @returns The checked body and the approvals answered.
 * @throws `ChatRequestError`: `CHAT_REQUEST_TOO_LARGE` (status 413) or `CHAT_REQUEST_INVALID` (400,
 *   not JSON, or not a chat request; its `issues` name the fields, never the values).
 * @throws `ConfigError` for a bad option, or when `answer` is not a function.
 *
 * @example
 * ```ts
 * import { lastValueFrom } from 'rxjs';
 * import { answerInterrupt, askForApproval, defineAgent, invoke$, observeRun } from '@rxagents/core';
 * import { answerFromChatRequest } from '@rxagents/web';
 *
 * const cashier = defineAgent('cashier', async (input, { run }) => {
 *   const decision = await lastValueFrom(askForApproval(run!, 'refund', { amount: 120 }));
 *   return decision.approved ? 'Refunded 120' : 'No refund';
 * });
 * observeRun('refund', 'Ada', (run) => invoke$(cashier, 'Ada', { run })).subscribe(async (event) => {
 *   if (event.type === 'run-end' && event.parentCallId === null) console.log(event.output); // Refunded 120
 *   if (event.type !== 'interrupt') return;
 *   // What the page's chat posts once the person approved the tool part.
 *   const part = { type: 'dynamic-tool', toolName: 'refund', toolCallId: event.interruptId, state: 'approval-responded', input: event.args, approval: { id: event.interruptId, approved: true }, toolMetadata: { runId: event.runId } };
 *   const body = { id: 'chat-1', trigger: 'submit-message', messages: [{ id: event.runId, role: 'assistant', parts: [part] }] };
 *   const request = new Request('https://example.com/api/chat', { method: 'POST', body: JSON.stringify(body) });
 *   await answerFromChatRequest(request, (runId, interruptId, decision) => answerInterrupt(runId, interruptId, decision));
 * });
 * ```
 */
export async function answerFromChatRequest(request: Request, answer: AnswerApproval, options: AnswerFromChatRequestOptions = {}): Promise<AnsweredChatRequest> {
  if (typeof (request as Partial<Request> | null)?.body !== 'object') throw new ConfigError('answerFromChatRequest', [{ path: 'request', rule: 'must be a Request', received: request }]);
  if (typeof answer !== 'function') throw new ConfigError('answerFromChatRequest', [{ path: 'answer', rule: 'must be a function', received: answer }]);
  const { maxBodyBytes = DEFAULT_MAX_BODY_BYTES } = parseConfig(AnswerFromChatRequestOptionsSchema, options, 'answerFromChatRequest options');
  const text = await readBounded(request, maxBodyBytes);
  if (text === undefined) throw new ChatRequestError('CHAT_REQUEST_TOO_LARGE', `The chat request is longer than ${maxBodyBytes} bytes`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ChatRequestError('CHAT_REQUEST_INVALID', 'The chat request is not JSON', [{ path: '', rule: 'must be JSON' }]);
  }
  const answers = approvalAnswersOf(json);
  const body = ChatRequestBodySchema.parse(json);
  for (const { runId, interruptId, answer: decision } of answers) await answer(runId, interruptId, decision);
  return { body, answers };
}
