import { CoordinationError } from '@rxagents/core';

/**
 * Listing an MCP server's tools failed (`tools/list`): the error of {@link McpToolSet.tools$}.
 *
 * @remarks
 * Raised when the first listing fails or a listing after `notifications/tools/list_changed` does; the tool
 * set stops following the server then (its `tools` keep the last good list). Retryable: the server or the
 * connection may recover; make a new tool set with {@link mcpToolSet} to try again. The SDK's error is the
 * `cause`.
 *
 * @example
 * ```ts
 * import { McpToolListError } from '@rxagents/mcp';
 *
 * const error = new McpToolListError(new Error('Connection closed'));
 * console.log(error.code, error.retryable, error.message); // MCP_TOOL_LIST_FAILED true Listing the MCP server's tools failed: Connection closed
 * ```
 */
export class McpToolListError extends CoordinationError {
  constructor(cause: unknown) {
    super('MCP_TOOL_LIST_FAILED', `Listing the MCP server's tools failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause, retryable: true });
  }
}
