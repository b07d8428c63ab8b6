export { aiSdkAgent, AiSdkAgentOptionsSchema, type AiSdkAgent, type AiSdkAgentOptions } from './aiSdkAgent';
export {
  aiSdkToolCallingModel,
  AiSdkToolCallingModelOptionsSchema,
  type AiSdkToolCallingModel,
  type AiSdkToolCallingModelOptions,
} from './aiSdkToolCallingModel';
export { AiSdkSettingsSchema, type AiSdkSettings } from './AiSdkSettings';
export type { AiSdkUsage, AiSdkUsageReport } from './AiSdkUsage';
export { toModelMessages } from './toModelMessages';
export { toAiSdkTools } from './toAiSdkTools';
export { toAgentError } from './toAgentError';
export { ModelCallError } from './errors/ModelCallError';
export { ToolApprovalUnavailableError } from './errors/ToolApprovalUnavailableError';
