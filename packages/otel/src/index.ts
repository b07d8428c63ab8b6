export { traceToOpenTelemetry, TraceToOpenTelemetryOptionsSchema, type TraceToOpenTelemetryOptions } from './traceToOpenTelemetry';
export { tracedAgent, TracedAgentOptionsSchema, type TracedAgentOptions } from './tracedAgent';
export { RunTraceContexts } from './RunTraceContexts';
export { TracingError } from './errors/TracingError';
