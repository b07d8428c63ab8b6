export { a2aExecutor } from './a2aExecutor';
export { serveA2aAgent, ServeA2aAgentOptionsSchema, type ServeA2aAgentOptions, type A2aAgentServer, type A2aRequestHeaders } from './serveA2aAgent';
