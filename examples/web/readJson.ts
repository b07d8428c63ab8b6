/** The JSON body of a request (`{ json }`), `'too large'` past `maxBytes` (reading stops there), or `undefined` when it is not JSON. */
export async function readJson(request: Request, maxBytes: number): Promise<{ readonly json: unknown } | 'too large' | undefined> {
  if (request.body === null) return undefined;
  const reader = request.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    size += next.value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return 'too large';
    }
    text += decoder.decode(next.value, { stream: true });
  }
  try {
    return { json: JSON.parse(text + decoder.decode()) as unknown };
  } catch {
    return undefined;
  }
}
