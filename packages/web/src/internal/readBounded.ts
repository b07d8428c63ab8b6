/** The body as text, or `undefined` when it is longer than `maxBytes` (reading stops there). */
export async function readBounded(request: Request, maxBytes: number): Promise<string | undefined> {
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    size += next.value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    text += decoder.decode(next.value, { stream: true });
  }
  return text + decoder.decode();
}
