import * as z from 'zod';
import type { ApprovalDecision } from '@rxagents/core';
import { ChatRequestError } from './errors/ChatRequestError';

/**
 * One approval a page decided: the run and the interrupt it answers (both needed, as for any answer from
 * outside the process), and the decision.
 *
 * @example
 * ```ts
 * import type { ApprovalAnswer } from '@rxagents/web';
 *
 * const answer: ApprovalAnswer = { runId: 'r1', interruptId: 'i1', answer: { approved: false, reason: 'Too much' } };
 * console.log(answer.answer.approved); // false
 * ```
 */
export interface ApprovalAnswer {
  /** The run the interrupt belongs to, as its `interrupt` event says it. */
  readonly runId: string;
  /** The interrupt (the tool part's `approval.id`). */
  readonly interruptId: string;
  /** The person's decision. */
  readonly answer: ApprovalDecision;
}

/** The longest run or interrupt id read from a chat request. */
const MAX_ID_LENGTH = 256;
/** The longest reason read from a chat request, as `ApprovalDecisionSchema` allows. */
const MAX_REASON_LENGTH = 10_000;

const id = () => z.string({ error: 'must be a string' }).min(1, 'must be a non-empty string').max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`);

const MessageSchema = z.object(
  {
    id: z.string({ error: 'must be a string' }),
    role: z.enum(['system', 'user', 'assistant'], { error: "must be 'system', 'user' or 'assistant'" }),
    metadata: z.unknown().optional(),
    parts: z.array(z.unknown(), { error: 'must be a list' }),
  },
  { error: 'must be an object' },
);

/**
 * The zod schema of the body the `ai` package's chat posts (`{ id, messages, trigger, messageId }`, with
 * whatever the page's transport adds): each message must have an `id`, a `role` and `parts` (a list,
 * its items not checked). Other fields are allowed and left out of the result, so no key a page chose
 * reaches the server's objects; a route that wants one of its own reads it from the body itself.
 *
 * @example
 * ```ts
 * import { ChatRequestBodySchema } from '@rxagents/web';
 *
 * console.log(ChatRequestBodySchema.safeParse({ id: 'chat-1', messages: [], trigger: 'submit-message' }).success); // true
 * ```
 */
export const ChatRequestBodySchema = z.object(
  {
    id: z.string({ error: 'must be a string' }).optional(),
    messages: z.array(MessageSchema, { error: 'must be a list' }),
    trigger: z.string({ error: 'must be a string' }).optional(),
    messageId: z.string({ error: 'must be a string' }).optional(),
  },
  { error: 'must be an object' },
);

/**
 * A chat request's body, as {@link ChatRequestBodySchema} reads it: its known fields only.
 *
 * @example
 * ```ts
 * import type { ChatRequestBody } from '@rxagents/web';
 *
 * const body: ChatRequestBody = { id: 'chat-1', trigger: 'submit-message', messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }] };
 * console.log(body.messages.length); // 1
 * ```
 */
export type ChatRequestBody = z.output<typeof ChatRequestBodySchema>;

/** A tool part the page answered: the `ai` chat's `addToolApprovalResponse` sets `approval-responded`. */
const RespondedPartSchema = z.object({
  approval: z.object(
    {
      id: id(),
      approved: z.boolean({ error: 'must be a boolean' }),
      reason: z.string({ error: 'must be a string' }).max(MAX_REASON_LENGTH, `must be at most ${MAX_REASON_LENGTH} characters`).optional(),
    },
    { error: 'must be an object' },
  ),
  toolMetadata: z.object({ runId: id().optional() }, { error: 'must be an object' }).optional(),
});

const MessageMetadataSchema = z.object({ runId: id() });

type Issue = { readonly path: string; readonly rule: string };

/**
 * Reads, from the body of a chat request, the approvals the page decided and the server has not yet
 * received: every tool part in state `approval-responded`.
 *
 * @remarks
 * The `ai` package's chat (`useChat`, `AbstractChat`) marks a tool part `approval-responded`, with
 * `approval: { id, approved, reason }`, when the page calls `addToolApprovalResponse`, and sends every
 * message back in its next request. For a run's approval (a tool part that {@link toUIMessageStream}
 * wrote) `approval.id` is the interrupt's id and the run's id is the part's `toolMetadata.runId` (or
 * else the message's metadata `runId`). Parts the server already answered moved on to
 * `output-available`, `output-denied` or `output-error`, and are not read again.
 *
 * The body is untrusted: it is checked with {@link ChatRequestBodySchema}, and each answered part with
 * the rules of an `ApprovalDecision` (ids at most 256 characters, a reason at most 10,000). An answered
 * part that breaks a rule, a part without a run id, or one interrupt answered twice with different
 * decisions refuses the whole body. Nothing here says the ids are right: whoever answers (a run
 * registry, `answerInterrupt`) checks that the interrupt is open and belongs to that run.
 *
 * @param body - The parsed JSON body of the chat request.
 * @returns The answers, in the order of the messages and parts, each interrupt once.
 * @throws `ChatRequestError` (`CHAT_REQUEST_INVALID`) naming each broken rule, never the value sent.
 *
 * @example
 * ```ts
 * import { approvalAnswersOf } from '@rxagents/web';
 *
 * const body = {
 *   id: 'chat-1',
 *   trigger: 'submit-message',
 *   messages: [{
 *     id: 'r1', role: 'assistant', metadata: { runId: 'r1', name: 'refund' },
 *     parts: [{ type: 'dynamic-tool', toolName: 'refund', toolCallId: 'i1', state: 'approval-responded', input: { amount: 120 }, approval: { id: 'i1', approved: true } }],
 *   }],
 * };
 * console.log(approvalAnswersOf(body)); // [ { runId: 'r1', interruptId: 'i1', answer: { approved: true } } ]
 * ```
 */
export function approvalAnswersOf(body: unknown): readonly ApprovalAnswer[] {
  const checked = ChatRequestBodySchema.safeParse(body);
  if (!checked.success) throw invalid(checked.error.issues.map((issue) => issueOf(issue)));
  const answers = new Map<string, ApprovalAnswer>();
  const issues: Issue[] = [];
  checked.data.messages.forEach((message, m) => {
    if (message.role !== 'assistant') return;
    const metadata = MessageMetadataSchema.safeParse(message.metadata);
    message.parts.forEach((part, p) => {
      if (!isRespondedToolPart(part)) return;
      const at = `messages.${m}.parts.${p}`;
      const read = RespondedPartSchema.safeParse(part);
      if (!read.success) return void issues.push(...read.error.issues.map((issue) => issueOf(issue, at)));
      const runId = read.data.toolMetadata?.runId ?? (metadata.success ? metadata.data.runId : undefined);
      if (runId === undefined) return void issues.push({ path: `${at}.toolMetadata.runId`, rule: 'must name the run (or the message metadata must)' });
      const { id: interruptId, approved, reason } = read.data.approval;
      const answer: ApprovalAnswer = { runId, interruptId, answer: reason === undefined ? { approved } : { approved, reason } };
      const seen = answers.get(interruptId);
      if (seen === undefined) answers.set(interruptId, answer);
      else if (seen.runId !== runId || seen.answer.approved !== approved || seen.answer.reason !== reason) issues.push({ path: `${at}.approval`, rule: 'must not answer an approval answered differently in another part' });
    });
  });
  if (issues.length > 0) throw invalid(issues);
  return [...answers.values()];
}

function isRespondedToolPart(part: unknown): boolean {
  if (typeof part !== 'object' || part === null) return false;
  const { type, state } = part as { type?: unknown; state?: unknown };
  return typeof type === 'string' && (type === 'dynamic-tool' || type.startsWith('tool-')) && state === 'approval-responded';
}

function invalid(issues: readonly Issue[]): ChatRequestError {
  const shown = issues.slice(0, 20).map(({ path, rule }) => `${path === '' ? 'body' : path} ${rule}`);
  const more = issues.length > shown.length ? ` (and ${issues.length - shown.length} more)` : '';
  return new ChatRequestError('CHAT_REQUEST_INVALID', `The chat request was refused: ${shown.join('; ')}${more}`, issues);
}

/** A rule broken: the path of schema keys and list indices, the schema's own rule, never the value. */
function issueOf(issue: z.core.$ZodIssue, at = ''): Issue {
  const path = [at, ...issue.path.map(String)].filter((segment) => segment !== '').join('.');
  return { path, rule: /^must /.test(issue.message) ? issue.message : 'is invalid' };
}
