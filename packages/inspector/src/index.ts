/**
 * `@rxagents/inspector`: a run inspector in the browser, served by one handler.
 *
 * @packageDocumentation
 */
export { inspectorHandler, type InspectorHandler } from './inspectorHandler';
export { InspectorHandlerOptionsSchema, type InspectorHandlerOptions } from './InspectorHandlerOptions';
