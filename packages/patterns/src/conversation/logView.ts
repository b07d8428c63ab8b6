import type { AppendLog } from './AppendLog';

/** Returns the object it is given, so that a subclass adds its private fields to that object. */
export class Marked {
  constructor(target: object) {
    return target;
  }
}

/**
 * Ties an object (a state, a snapshot) to the {@link AppendLog} its list property reads, in a private
 * field added to the object itself: invisible to spreading, `Object.keys`, `JSON.stringify` and
 * equality checks, and not carried by a copy (`{ ...state }` reads as a hand-made object).
 */
class LogMark extends Marked {
  readonly #log: AppendLog<unknown>;

  constructor(target: object, log: AppendLog<unknown>) {
    super(target);
    this.#log = log;
  }

  static of(target: object): AppendLog<unknown> | undefined {
    return #log in target ? (target as LogMark).#log : undefined;
  }
}

/**
 * The property descriptor of a list read from the object's log ({@link markLog}): an enumerable getter
 * that builds the frozen array on first read. Made once per property name and shared by every object:
 * an object literal with a getter of its own (a new closure per object) is kept by V8 as a slow
 * dictionary object, several times as costly to make and to collect, and a pattern makes one per step.
 */
export function logView(): PropertyDescriptor {
  return {
    get(this: object): readonly unknown[] {
      return (LogMark.of(this) as AppendLog<unknown>).toArray();
    },
    enumerable: true,
    configurable: true,
  };
}

/** Marks `target` as reading its list from `log`; returns `target`. */
export function markLog<O extends object>(target: O, log: AppendLog<unknown>): O {
  new LogMark(target, log);
  return target;
}

/** The log `target` was marked with, `undefined` for an object made by hand (or copied). */
export function markedLog<T>(target: object): AppendLog<T> | undefined {
  return LogMark.of(target) as AppendLog<T> | undefined;
}
