export { mcpToolSet, McpToolSetOptionsSchema, type McpToolSet, type McpToolSetOptions } from './mcpToolSet';
export { mcpServer, McpServerOptionsSchema, type McpServerOptions } from './mcpServer';
export type { McpToolDefinition } from './McpToolDefinition';
export { serveMcpOverStdio } from './serveMcpOverStdio';
export { serveMcpOverHttp, McpHttpServerOptionsSchema, type McpHttpServerOptions, type McpHttpServer } from './serveMcpOverHttp';
export { McpToolError } from './errors/McpToolError';
export { McpToolListError } from './errors/McpToolListError';
