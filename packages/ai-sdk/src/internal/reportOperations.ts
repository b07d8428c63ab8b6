import { emitCustom, type RunContext } from '@rxagents/core';
import { type MonoTypeOperatorFunction, tap } from 'rxjs';
import type { ModelStreamPart } from '../streamModelParts';

/** The `custom` event an AI SDK agent says when a model call ends: what an OpenTelemetry `chat` span is made of. */
export const MODEL_CALL_EVENT = 'gen_ai.chat';
/** The `custom` event an AI SDK agent says when a tool's execution ends: an OpenTelemetry `execute_tool` span. */
export const TOOL_EXECUTION_EVENT = 'gen_ai.execute_tool';

/**
 * @internal Says each model call (a step of the SDK's loop) and each tool execution of a reply as `custom`
 * events of its call, when it ends, with the scheduler time it started: `gen_ai.chat` `{ model, startedAt,
 * finishReason, inputTokens?, outputTokens? }` and `gen_ai.execute_tool` `{ toolName, toolCallId, startedAt,
 * error? }`. A tool held for a person's approval starts when the loop goes on after the decision.
 */
export function reportOperations(run: RunContext | undefined): MonoTypeOperatorFunction<ModelStreamPart> {
  if (run === undefined || run.callId === null) return (parts$) => parts$;
  const now = (): number => run.scheduler.now();
  let stepStartedAt: number | undefined;
  const tools = new Map<string, number>();
  const approving = new Set<string>();
  let decided = false;
  return tap((part) => {
    // After a step that asked for approvals, the next part belongs to the model call that goes on once
    // they are decided: the approved tools run from then.
    if (decided) {
      for (const id of approving) tools.set(id, now());
      approving.clear();
      decided = false;
    }
    if (part.type === 'finish-step' && approving.size > 0) decided = true;
    switch (part.type) {
      case 'start-step':
        stepStartedAt = now();
        return;
      case 'finish-step': {
        const { inputTokens, outputTokens } = part.usage;
        emitCustom(run, MODEL_CALL_EVENT, {
          model: part.response.modelId,
          startedAt: stepStartedAt ?? now(),
          finishReason: part.finishReason,
          ...(inputTokens === undefined ? {} : { inputTokens }),
          ...(outputTokens === undefined ? {} : { outputTokens }),
        });
        stepStartedAt = undefined;
        return;
      }
      case 'tool-call':
        tools.set(part.toolCallId, now());
        return;
      case 'tool-approval-request':
        approving.add(part.toolCall.toolCallId);
        return;
      case 'tool-result':
      case 'tool-error': {
        const startedAt = tools.get(part.toolCallId) ?? now();
        tools.delete(part.toolCallId);
        const said = { toolName: part.toolName, toolCallId: part.toolCallId, startedAt };
        if (part.type === 'tool-error') emitCustom(run, TOOL_EXECUTION_EVENT, { ...said, error: part.error instanceof Error ? part.error.message : String(part.error) });
        else emitCustom(run, TOOL_EXECUTION_EVENT, said);
        return;
      }
      default:
        return;
    }
  });
}
