// Compiled by `pnpm lint:packages` (with the benchmarks: bench/tsconfig.json) against the built packages' .d.ts files (no source paths), as a user's
// project sees them: every name that is both a type and a namespace of functions must stay usable as both.
import { AgentRef, ChannelExecutionStrategy, ConversationState, ExecutionModel, TerminationCondition, TurnPolicy, VotingAggregation } from '@rxagents/patterns';

export type Names = [
  AgentRef,
  ChannelExecutionStrategy<never>,
  ConversationState,
  ExecutionModel<number>,
  TerminationCondition<number>,
  TurnPolicy,
  VotingAggregation,
];

export function functions(): readonly unknown[] {
  return [AgentRef.of, ChannelExecutionStrategy, ConversationState, ExecutionModel.create, TerminationCondition.maxIterations, TurnPolicy, VotingAggregation];
}
