/**
 * A short, readable rendering of any value for an error message (at most 80 characters).
 *
 * @example
 * ```ts
 * import { preview } from '@rxagents/core';
 *
 * console.log(preview({ bufferSize: -1 })); // {"bufferSize":-1}
 * ```
 */
export function preview(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return `[function ${value.name || 'anonymous'}]`;
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'number') return String(value); // JSON would show NaN and Infinity as null
  if (typeof value === 'symbol') return value.toString();
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
