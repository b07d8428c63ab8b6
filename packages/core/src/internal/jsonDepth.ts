/**
 * How deep a run event's JSON data (a `custom` event's `data`) may nest: arrays and objects inside each
 * other at most this many levels. Validating deeper data recursively would overflow the stack, so a
 * hostile or broken producer could make `RunEventSchema.safeParse` throw instead of answering.
 */
export const MAX_JSON_DEPTH = 100;

/** Whether `value` nests arrays or objects more than `levels` deep; walks without recursion and stops at the first too deep. */
export function nestsDeeperThan(value: unknown, levels: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const current = values.pop() as object;
    const depth = depths.pop() as number;
    if (depth > levels) return true;
    for (const key in current) {
      if (!Object.prototype.hasOwnProperty.call(current, key)) continue;
      const inner: unknown = (current as Record<string, unknown>)[key];
      if (typeof inner === 'object' && inner !== null) {
        values.push(inner);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}
