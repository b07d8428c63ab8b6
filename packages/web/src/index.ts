/**
 * `@rxagents/web`: a live rxagents run in a browser over standard Web APIs.
 *
 * @packageDocumentation
 */

export { humanAgent, type HumanAgent, type HumanAgentOptions, type InputRequest } from './humanAgent';
export { InputRequestNotFoundError } from './errors/InputRequestNotFoundError';
