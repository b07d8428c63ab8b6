/**
 * The replies a run posted on its channel and has not read back yet, counted by agent id.
 *
 * @remarks
 * A reply is counted when it is posted (before the post: a channel may deliver it during the post) and
 * read when it comes back; a message from anyone else on the channel reads nothing. When the channel ends
 * with replies still unread, they were dropped, and {@link UnreadReplies.oneOf} names an agent whose was.
 *
 * @internal
 */
export class UnreadReplies {
  readonly #byAgent = new Map<string, number>();
  #count = 0;

  /** How many replies are unread. */
  get count(): number {
    return this.#count;
  }

  /** Counts a reply of `agentId` as posted. */
  posted(agentId: string): void {
    this.#byAgent.set(agentId, (this.#byAgent.get(agentId) ?? 0) + 1);
    this.#count += 1;
  }

  /** Counts a reply of `agentId` as read back; a message of someone with no reply unread changes nothing. */
  read(agentId: string): void {
    const waiting = this.#byAgent.get(agentId);
    if (waiting === undefined) return;
    if (waiting === 1) this.#byAgent.delete(agentId);
    else this.#byAgent.set(agentId, waiting - 1);
    this.#count -= 1;
  }

  /** An agent with a reply unread, if any. */
  oneOf(): string | undefined {
    return this.#byAgent.keys().next().value;
  }
}
