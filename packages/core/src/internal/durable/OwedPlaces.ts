import type { RunEvent } from '../../events/RunEvent';
import { placeKeyOf } from './placeKeys';

/** What the journal holds at a place a resumed body owes it. */
export type OwedPlace = { readonly kind: 'call' } | { readonly kind: 'interrupt' } | { readonly kind: 'node'; readonly name: string };

const CALL: OwedPlace = { kind: 'call' };
const INTERRUPT: OwedPlace = { kind: 'interrupt' };

/**
 * The recorded places a resumed run must reach again before the node above them ends: every agent call,
 * question and nested run with no agent call above it, by place key, in the order the journal first
 * reached them.
 *
 * @remarks
 * A body that ended without reaching one of them would end its node on an outcome the journal
 * contradicts (fewer calls than it made), and the code that wrote the journal would later find that end
 * and go past it. A place under an agent call is not owed: under a call that ended it is never reached
 * again (the call is answered whole), and under one that runs again its new attempt may make its calls
 * differently. Nor is a call or question the run itself cancelled before it gave anything: nothing of it
 * reached the code, and a resumed run, whose replayed calls take no time, may cancel its branch before it
 * makes it.
 *
 * @internal
 */
export class OwedPlaces {
  readonly #all = new Map<string, OwedPlace>();
  /** The owed places under each node, by the node's place key. */
  readonly #under = new Map<string, Set<string>>();
  readonly #parentOf = new Map<string, string>();
  /** Nested runs made inside an agent call (a composed agent's pattern), at any depth, by node id. */
  readonly #nodesUnderCall = new Set<string>();

  /** Reads the journal's next event; `isCall` tells whether a node id seen so far is an agent call's. */
  see(event: RunEvent, isCall: (callId: string) => boolean): void {
    const { parentCallId } = event;
    if (parentCallId === null) return;
    const underCall = isCall(parentCallId) || this.#nodesUnderCall.has(parentCallId);
    if (event.type === 'run-start') {
      if (underCall) this.#nodesUnderCall.add(event.callId);
      else this.#owe(event.callId, parentCallId, { kind: 'node', name: event.name });
    } else if (!underCall && event.type === 'call-start') this.#owe(event.callId, parentCallId, CALL);
    else if (!underCall && event.type === 'interrupt') this.#owe(event.callId, parentCallId, INTERRUPT);
  }

  /** The place is not owed after all (see the remarks), or the resumed run reached it. */
  settle(key: string): void {
    if (!this.#all.delete(key)) return;
    this.#under.get(this.#parentOf.get(key) as string)?.delete(key);
    this.#parentOf.delete(key);
  }

  /** The first place still owed, in journal order. */
  first(): [string, OwedPlace] | undefined {
    for (const entry of this.#all) return entry;
    return undefined;
  }

  /** The first place still owed right under the node at `nodeKey`, in journal order. */
  firstUnder(nodeKey: string): [string, OwedPlace] | undefined {
    const under = this.#under.get(nodeKey);
    if (under !== undefined) for (const key of under) return [key, this.#all.get(key) as OwedPlace];
    return undefined;
  }

  #owe(callId: string, parentCallId: string, place: OwedPlace): void {
    const key = placeKeyOf(callId);
    if (this.#all.has(key)) return;
    const parentKey = placeKeyOf(parentCallId);
    this.#all.set(key, place);
    this.#parentOf.set(key, parentKey);
    let under = this.#under.get(parentKey);
    if (under === undefined) this.#under.set(parentKey, (under = new Set()));
    under.add(key);
  }
}
