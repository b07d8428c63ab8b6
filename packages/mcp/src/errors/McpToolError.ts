import { CoordinationError } from '@rxagents/core';

/**
 * An MCP tool answered with an error result (`isError: true`), or its call failed in the protocol: what the
 * model is given as the tool's error result.
 *
 * @remarks
 * Thrown from the `execute` of a tool made by {@link mcpToolSet}; the AI SDK turns it into the call's
 * `tool-error` and gives the model its message as the tool's result, so the model can react (retry with
 * other arguments, apologise) and the reply goes on. The message is the tool's own text (or the protocol
 * error's message); `context` names the tool, and `protocolCode` holds a JSON-RPC error code when the
 * protocol refused the call. Not retryable as such: the model decides.
 *
 * @example
 * ```ts
 * import { McpToolError } from '@rxagents/mcp';
 *
 * const error = new McpToolError('weather', 'No such city: Atlantis');
 * console.log(error.code, error.message); // MCP_TOOL_FAILED No such city: Atlantis
 * ```
 */
export class McpToolError extends CoordinationError {
  constructor(
    /** The MCP tool's name. */
    readonly toolName: string,
    message: string,
    /** The JSON-RPC error code when the protocol refused the call (for example -32602), else `undefined`. */
    readonly protocolCode?: number,
    cause?: unknown,
  ) {
    super('MCP_TOOL_FAILED', message, { cause, context: { toolName, ...(protocolCode === undefined ? {} : { protocolCode }) } });
  }
}
