/**
 * The default `onError` of a worker or a bus: a process warning with `code`, so a failure the package
 * survives is seen (`node --trace-warnings`, `process.on('warning')`) without crashing anything.
 *
 * @remarks
 * The warning carries the error's text, not the error itself: `process.emitWarning` refuses an `Error`
 * made in another realm (a test runner's sandbox, a `vm` context) with a `TypeError`, and a reporter that
 * throws would turn a survived failure into a crash.
 */
export function processWarning(code: string): (error: unknown) => void {
  return (error) => process.emitWarning(String(error), { code });
}
