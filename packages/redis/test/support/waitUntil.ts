/** Polls `check` until it returns true (every 20 ms); fails after `limitMs` with `what` in the message. */
export async function waitUntil(what: string, check: () => boolean | Promise<boolean>, limitMs = 15_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
