/** An error named `AbortError`, as a cancelled `fetch` gives: how a cancelled call or run reads in its event. */
export function abortError(message: string): Error {
  const error = new Error(message);
  error.name = 'AbortError';
  return error;
}
