import { CoordinationError } from '@rxagents/core';

/**
 * The codes of a {@link ChatRequestError}.
 *
 * @example
 * ```ts
 * import type { ChatRequestErrorCode } from '@rxagents/web';
 *
 * const code: ChatRequestErrorCode = 'CHAT_REQUEST_TOO_LARGE';
 * console.log(code); // CHAT_REQUEST_TOO_LARGE
 * ```
 */
export type ChatRequestErrorCode = 'CHAT_REQUEST_INVALID' | 'CHAT_REQUEST_TOO_LARGE';

/**
 * A chat request (the body the `ai` package's chat posts: `{ id, messages, trigger, ... }`) that was
 * refused before anything was answered: too large (`CHAT_REQUEST_TOO_LARGE`, status 413) or not a chat
 * request whose approvals can be read (`CHAT_REQUEST_INVALID`, status 400, `issues` naming each field and
 * rule, never the value sent).
 *
 * @example
 * ```ts
 * import { approvalAnswersOf, ChatRequestError } from '@rxagents/web';
 *
 * try {
 *   approvalAnswersOf({ messages: 'not a list' });
 * } catch (error) {
 *   if (error instanceof ChatRequestError) console.log(error.code, error.status, error.issues[0]?.path); // CHAT_REQUEST_INVALID 400 messages
 * }
 * ```
 */
export class ChatRequestError extends CoordinationError {
  declare readonly code: ChatRequestErrorCode;

  constructor(
    code: ChatRequestErrorCode,
    message: string,
    /** Each broken rule: the field's path in the body and the rule, without the value. */
    readonly issues: readonly { readonly path: string; readonly rule: string }[] = [],
  ) {
    super(code, message, { context: { issues } });
  }

  /** The HTTP status to answer with: 413 for a body too large, 400 otherwise. */
  get status(): 400 | 413 {
    return this.code === 'CHAT_REQUEST_TOO_LARGE' ? 413 : 400;
  }
}
