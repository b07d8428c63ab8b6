/**
 * Whether `value` makes a `Headers` object: an object whose names and values are valid HTTP header names
 * and values. Option schemas check it, so a bad header is a `ConfigError` when the response is asked for,
 * before any run starts, instead of a `TypeError` from `new Headers`.
 */
export function isHeadersInit(value: unknown): value is HeadersInit {
  if (typeof value !== 'object' || value === null) return false;
  try {
    new Headers(value as HeadersInit);
    return true;
  } catch {
    return false;
  }
}
