import type { Agent } from '@rxagents/core';

/** A participant of a pattern: any agent, including a `ComposedAgent`. Public as `AgentRef` from the package index. */
export type AgentRef = Agent;
