/**
 * One agent's vote, as parsed from its reply; `choice` is `undefined` for an abstention (a failed call,
 * or a reply that holds no choice: `parseVote` gave `''`).
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns, type Vote } from '@rxagents/patterns';
 *
 * // A custom aggregation: "yes" needs two thirds of the voters; an abstention counts against.
 * const twoThirds = (votes: readonly Vote[]) => {
 *   const yes = votes.filter((vote) => vote.choice === 'yes').length;
 *   return yes * 3 >= votes.length * 2 ? { winner: 'yes', reason: `${yes} of ${votes.length} said yes` } : { winner: undefined, reason: 'no two-thirds majority' };
 * };
 * const voters = [defineAgent('a', async () => 'yes'), defineAgent('b', async () => 'yes'), defineAgent('c', async () => 'no')];
 * console.log((await Patterns.voting({ agents: voters, aggregation: twoThirds }).execute('Adopt?')).reason); // 2 of 3 said yes
 * ```
 */
export interface Vote {
  readonly agentId: string;
  readonly choice: string | undefined;
}

/**
 * What an aggregation concludes: a winner, or none (the vote is deadlocked).
 *
 * @example
 * ```ts
 * import { VotingAggregation, type VotingDecision } from '@rxagents/patterns';
 *
 * const decision: VotingDecision = VotingAggregation.majority()([
 *   { agentId: 'a', choice: 'ship' },
 *   { agentId: 'b', choice: 'ship' },
 *   { agentId: 'c', choice: undefined },
 * ]);
 * console.log(decision.winner ?? 'deadlocked', '-', decision.reason); // ship - ship won with 2 of 3 votes
 * ```
 */
export interface VotingDecision {
  readonly winner: string | undefined;
  readonly reason: string;
}

/**
 * Turns votes into a decision; the run's status is `deadlocked` when there is no winner.
 *
 * @example
 * ```ts
 * import { VotingAggregation } from '@rxagents/patterns';
 *
 * const decision = VotingAggregation.majority()([
 *   { agentId: 'a', choice: 'yes' },
 *   { agentId: 'b', choice: 'no' },
 * ]);
 * console.log(decision.winner, decision.reason); // undefined tie between no, yes (1 vote each)
 * ```
 */
export type VotingAggregation = (votes: readonly Vote[]) => VotingDecision;

export function tally(votes: readonly Vote[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const vote of votes) if (vote.choice !== undefined) counts.set(vote.choice, (counts.get(vote.choice) ?? 0) + 1);
  return counts;
}
