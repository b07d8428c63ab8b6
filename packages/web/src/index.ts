/**
 * `@rxagents/web`: a live rxagents run in a browser over standard Web APIs.
 *
 * @packageDocumentation
 */
export {};
