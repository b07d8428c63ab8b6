export { a2aAgent, A2aAgentOptionsSchema, type A2aAgentOptions } from './a2aAgent';
export { a2aExecutor } from './a2aExecutor';
export { serveA2aAgent, ServeA2aAgentOptionsSchema, type ServeA2aAgentOptions, type A2aAgentServer, type A2aRequestHeaders } from './serveA2aAgent';
export { A2aTaskFailedError } from './errors/A2aTaskFailedError';
export { A2aInputRequiredError } from './errors/A2aInputRequiredError';
export { A2aStreamLostError } from './errors/A2aStreamLostError';
