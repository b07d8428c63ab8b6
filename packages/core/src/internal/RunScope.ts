import type { RunContext } from '../events/RunContext';
import type { RunEvent } from '../events/RunEvent';

type Emit = RunContext['emit'];

/** The scope of each context emit this module made, so a node made under that context joins its tree. */
const SCOPES = new WeakMap<Emit, RunScope>();

/**
 * Whether a node of a run (an agent call, a nested run) may still report, for the node and everything
 * made under it.
 *
 * @remarks
 * Nothing is said of a node once it ended: an agent that ignores its abort and reports later through its
 * context (usage, a custom event, a nested run or call) says nothing more. The context a node hands on
 * emits through {@link RunScope.emit}, which drops what arrives once the node or a node above it closed.
 *
 * Whatever level a node sits at, its events pass one guard, its own: {@link RunScope.deliver} is the run's
 * own delivery, past the nodes above, because closing a node closes the nodes still open under it, so one
 * flag tells the whole way up. (A chain of guards, one per level, cost every delta a call per level of
 * nesting.) A call's deltas, one per chunk, skip even that call: they check {@link RunScope.closed} and go
 * to `deliver`.
 *
 * A context whose `emit` this module did not make (the root's, or one a user wrapped) starts a scope tree
 * of its own that delivers through that `emit`, so a wrapper still sees every event.
 *
 * @internal
 */
export class RunScope {
  /** True once this node, or a node above it, ended: nothing more is reported under it. */
  closed = false;
  /** Where this node's events go: the run's delivery, past the guards of the nodes above it. */
  readonly deliver: Emit;
  /** The emit of the context this node hands on: drops what arrives once the node closed. */
  readonly emit: Emit;
  readonly #parent: RunScope | undefined;
  #children: Set<RunScope> | undefined;

  private constructor(deliver: Emit, parent: RunScope | undefined) {
    this.deliver = deliver;
    this.#parent = parent;
    if (parent !== undefined) {
      if (parent.closed) this.closed = true;
      else (parent.#children ??= new Set()).add(this);
    }
    this.emit = (event: RunEvent): void => {
      if (!this.closed) deliver(event);
    };
    SCOPES.set(this.emit, this);
  }

  /** The scope of a node made under `run`. */
  static under(run: RunContext): RunScope {
    const parent = SCOPES.get(run.emit);
    return new RunScope(parent === undefined ? run.emit : parent.deliver, parent);
  }

  /** The node ended: it, and every node still open under it, report nothing more. */
  close(): void {
    if (this.closed) return;
    const parent = this.#parent;
    if (parent !== undefined) parent.#children?.delete(this);
    this.#closeTree();
  }

  #closeTree(): void {
    this.closed = true;
    const children = this.#children;
    this.#children = undefined;
    if (children !== undefined) for (const child of children) child.#closeTree();
  }
}
