import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { fromAbortSignal, invoke$, observeRun, type RunEvent, type RunEventOf } from '@rxagents/core';
import type { Observable } from 'rxjs';
import type { McpToolDefinition } from '../McpToolDefinition';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * @internal One `tools/call` of a served tool: runs it, sends its text deltas as progress, answers with
 * its output (an error result when the run failed), and unsubscribes the run when the request is cancelled.
 */
export function callAsTool(tool: McpToolDefinition, defaultInput: boolean, args: Record<string, unknown>, extra: Extra): Promise<CallToolResult> {
  const events$ = runOf(tool, defaultInput, args);
  const progressToken = extra._meta?.progressToken;
  return new Promise<CallToolResult>((resolve, reject) => {
    let rootCallId: string | undefined;
    let end: RunEventOf<'run-end'> | undefined;
    let deltas = 0;
    // Progress is sent in order and before the result: a client drops progress that arrives after its answer.
    let sent: Promise<unknown> = Promise.resolve();
    const answer = (result: CallToolResult): void => void sent.then(() => resolve(result));
    const onEvent = (event: RunEvent): void => {
      if (event.type === 'run-start' && rootCallId === undefined) rootCallId = event.callId;
      else if (event.type === 'run-end' && event.callId === rootCallId) end = event;
      else if (event.type === 'text-delta' && progressToken !== undefined) {
        deltas++;
        // A notification that cannot be sent (the client went away) is the transport's to report; the run goes on until cancelled.
        const params = { progressToken, progress: deltas, message: event.delta };
        sent = sent.then(() => extra.sendNotification({ method: 'notifications/progress', params })).catch(() => undefined);
      }
    };
    const run = events$.subscribe({
      next: onEvent,
      error: (error: unknown) => answer(errorResult(error instanceof Error ? error.message : String(error))),
      complete: () => {
        if (end === undefined) answer(errorResult(`The run of tool "${tool.name}" ended without a result`));
        else if (end.success) answer({ content: [{ type: 'text', text: end.output ?? '' }] });
        else answer(errorResult(end.error?.message ?? `The run of tool "${tool.name}" failed`));
      },
    });
    const cancelled = fromAbortSignal(extra.signal).subscribe((reason) => {
      run.unsubscribe();
      reject(reason);
    });
    run.add(cancelled);
  });
}

function runOf(tool: McpToolDefinition, defaultInput: boolean, args: Record<string, unknown>): Observable<RunEvent> {
  if (tool.events !== undefined) return tool.events(args);
  const agent = tool.agent;
  if (agent === undefined) throw new Error(`Tool "${tool.name}" has neither agent nor events`);
  const input = defaultInput ? String(args['input']) : JSON.stringify(args);
  return observeRun(tool.name, input, (run) => invoke$(agent, input, { run }));
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}
