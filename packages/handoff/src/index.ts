export type { ToolCallingModel, ToolCallingRequest, ToolCallingResponse, ToolDefinition } from './ToolCallingModel';
