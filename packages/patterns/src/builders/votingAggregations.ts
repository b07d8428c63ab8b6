import { ConfigError } from '@rxagents/core';
import { tally, type VotingAggregation } from './VotingAggregation';

// The built-in VotingAggregations, exported from the package as the module namespace `VotingAggregation`.

/**
 * The choice with the most votes wins; a tie for first place (or no vote at all) deadlocks.
 *
 * @example
 * ```ts
 * import { VotingAggregation } from '@rxagents/patterns';
 *
 * const mostVotes = VotingAggregation.majority();
 * ```
 */
export function majority(): VotingAggregation {
  return (votes) => {
    checkVotes('VotingAggregation.majority', votes);
    const ranked = [...tally(votes)].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    const [top, second] = ranked;
    if (top === undefined) return { winner: undefined, reason: 'no valid vote' };
    if (second !== undefined && second[1] === top[1]) {
      const tied = ranked.filter(([, count]) => count === top[1]).map(([choice]) => choice);
      return { winner: undefined, reason: `tie between ${tied.join(', ')} (${top[1]} vote${top[1] === 1 ? '' : 's'} each)` };
    }
    return { winner: top[0], reason: `${top[0]} won with ${top[1]} of ${votes.length} votes` };
  };
}

/**
 * Every voter must make the same choice (an abstention breaks unanimity); anything else deadlocks.
 *
 * @example
 * ```ts
 * import { VotingAggregation } from '@rxagents/patterns';
 *
 * console.log(VotingAggregation.unanimous()([{ agentId: 'a', choice: 'go' }]).winner); // go
 * ```
 */
export function unanimous(): VotingAggregation {
  return (votes) => {
    checkVotes('VotingAggregation.unanimous', votes);
    const choices = new Set(votes.map((vote) => vote.choice));
    const [only] = choices;
    return choices.size === 1 && only !== undefined && votes.length > 0
      ? { winner: only, reason: `unanimous: ${only}` }
      : { winner: undefined, reason: 'no unanimity' };
  };
}

/** Refuses votes that are not an array of `{ agentId, choice }` objects, naming the first bad one. */
function checkVotes(subject: string, votes: unknown): void {
  if (!Array.isArray(votes)) throw new ConfigError(subject, [{ path: 'votes', rule: 'must be an array of votes', received: votes }]);
  for (let index = 0; index < votes.length; index += 1) {
    const vote: unknown = votes[index];
    if (typeof vote !== 'object' || vote === null) throw new ConfigError(subject, [{ path: `votes.${index}`, rule: 'must be a vote ({ agentId, choice })', received: vote }]);
  }
}
