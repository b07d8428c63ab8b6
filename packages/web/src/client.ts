/**
 * `@rxagents/web/client`: the browser-safe half of `@rxagents/web` (no Node imports).
 *
 * @packageDocumentation
 */
export {};
