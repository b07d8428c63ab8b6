import { type Attributes, type Context, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import type { RunEventOf } from '@rxagents/core';
import * as z from 'zod';
import * as genAi from './genAi';
import { hrTimeOf } from './hrTimeOf';

const ModelCallSchema = z.looseObject({
  model: z.string(),
  startedAt: z.number(),
  finishReason: z.string().optional(),
  inputTokens: z.number().int().nonnegative().optional(),
  outputTokens: z.number().int().nonnegative().optional(),
});
const ToolExecutionSchema = z.looseObject({ toolName: z.string(), toolCallId: z.string(), startedAt: z.number(), error: z.string().optional() });

/**
 * The span of a finished model call or tool execution an agent reported as a `custom` event (`gen_ai.chat`,
 * `gen_ai.execute_tool`, as `aiSdkAgent` says them), under its call's span; `false` for any other custom
 * event or one whose data is not of that shape (it stays a span event).
 */
export function operationSpan(tracer: Tracer, parent: Context, event: RunEventOf<'custom'>, clock: 'events' | 'tracer', captureContent: boolean): boolean {
  const time = (ms: number) => (clock === 'events' ? hrTimeOf(ms) : undefined);
  if (event.name === 'gen_ai.chat') {
    const call = ModelCallSchema.safeParse(event.data);
    if (!call.success) return false;
    const { model, startedAt, finishReason, inputTokens, outputTokens } = call.data;
    const attributes: Attributes = { [genAi.GEN_AI_OPERATION_NAME]: 'chat', [genAi.GEN_AI_REQUEST_MODEL]: model, [genAi.GEN_AI_CONVERSATION_ID]: event.runId };
    if (finishReason !== undefined) attributes[genAi.GEN_AI_RESPONSE_FINISH_REASONS] = [finishReason];
    if (inputTokens !== undefined) attributes[genAi.GEN_AI_USAGE_INPUT_TOKENS] = inputTokens;
    if (outputTokens !== undefined) attributes[genAi.GEN_AI_USAGE_OUTPUT_TOKENS] = outputTokens;
    tracer.startSpan(`chat ${model}`, { attributes, startTime: time(startedAt) }, parent).end(time(event.at));
    return true;
  }
  if (event.name === 'gen_ai.execute_tool') {
    const execution = ToolExecutionSchema.safeParse(event.data);
    if (!execution.success) return false;
    const { toolName, toolCallId, startedAt, error } = execution.data;
    const attributes: Attributes = { [genAi.GEN_AI_OPERATION_NAME]: 'execute_tool', [genAi.GEN_AI_TOOL_NAME]: toolName, [genAi.GEN_AI_TOOL_CALL_ID]: toolCallId, [genAi.GEN_AI_CONVERSATION_ID]: event.runId };
    const span = tracer.startSpan(`execute_tool ${toolName}`, { attributes, startTime: time(startedAt) }, parent);
    if (error !== undefined) {
      span.setAttribute(genAi.ERROR_TYPE, 'ToolError');
      span.setStatus({ code: SpanStatusCode.ERROR, message: captureContent ? error : 'the tool failed' });
    }
    span.end(time(event.at));
    return true;
  }
  return false;
}
