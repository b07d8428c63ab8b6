/**
 * The replies a run posted on its channel and has not read back yet, each under a key that only the run
 * knows (the reply object itself, or the call id a message carries as its `replyTo`).
 *
 * @remarks
 * A reply is counted when it is posted (before the post: a channel may deliver it during the post) and
 * read when it comes back. Only a reply's own key reads it: a message from anyone else on the channel,
 * under the name of one of the run's agents or not, reads nothing, and a reply read once is not read
 * again. When the channel ends with replies still unread, they were dropped, and
 * {@link UnreadReplies.oneOf} names an agent whose was.
 *
 * @internal
 */
export class UnreadReplies<K> {
  readonly #agentOf = new Map<K, string>();

  /** How many replies are unread. */
  get count(): number {
    return this.#agentOf.size;
  }

  /** Counts the reply of `agentId` under `key` as posted. */
  posted(key: K, agentId: string): void {
    this.#agentOf.set(key, agentId);
  }

  /** Reads the reply posted under `key`: `true` if it was one of the run's unread replies, `false` for anything else. */
  read(key: K): boolean {
    return this.#agentOf.delete(key);
  }

  /** An agent with a reply unread, if any. */
  oneOf(): string | undefined {
    return this.#agentOf.values().next().value;
  }
}
