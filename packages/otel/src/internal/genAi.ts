/** The attribute names of the OpenTelemetry semantic conventions for generative AI that the spans carry. */
export const GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const GEN_AI_AGENT_ID = 'gen_ai.agent.id';
export const GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
export const GEN_AI_WORKFLOW_NAME = 'gen_ai.workflow.name';
export const GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';
export const GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id';
export const GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const GEN_AI_INPUT_MESSAGES = 'gen_ai.input.messages';
export const GEN_AI_OUTPUT_MESSAGES = 'gen_ai.output.messages';
export const ERROR_TYPE = 'error.type';

/** `gen_ai.input.messages` of one user text, as the conventions write it (a JSON string). */
export function inputMessages(text: string): string {
  return JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: text }] }]);
}

/** `gen_ai.output.messages` of one assistant text, as the conventions write it (a JSON string). */
export function outputMessages(text: string, finishReason: string): string {
  return JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: text }], finish_reason: finishReason }]);
}
