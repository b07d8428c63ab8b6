import { CoordinationError } from '@rxagents/core';

/**
 * A tool that needs a person's approval was called where nobody can be asked: the agent's call has no run.
 *
 * @remarks
 * `aiSdkAgent` asks for a tool approval with core's `askForApproval`, which needs the call's run
 * (`ChatOptions.run`, given when the call is made inside `observeRun`, a run registry or any watched run).
 * Called without one (a bare `invoke$(agent, text)`), a tool call the AI SDK holds for approval
 * (`needsApproval`) fails the reply with this error instead of running the tool unasked. Not retryable:
 * the same call fails again; call the agent inside a run.
 *
 * @example
 * ```ts
 * import { ToolApprovalUnavailableError } from '@rxagents/ai-sdk';
 *
 * const error = new ToolApprovalUnavailableError('cashier', 'refund');
 * console.log(error.code, error.toolName); // TOOL_APPROVAL_UNAVAILABLE refund
 * ```
 */
export class ToolApprovalUnavailableError extends CoordinationError {
  constructor(
    /** The agent whose model called the tool. */
    readonly agentId: string,
    /** The tool that needs an approval. */
    readonly toolName: string,
  ) {
    super(
      'TOOL_APPROVAL_UNAVAILABLE',
      `Agent "${agentId}" called tool "${toolName}", which needs a person's approval, outside a run: nobody can be asked (call the agent with ChatOptions.run, inside observeRun)`,
      { retryable: false, context: { agentId, toolName } },
    );
  }
}
