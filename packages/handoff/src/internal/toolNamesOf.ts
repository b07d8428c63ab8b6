/** The tool names an agent declares in an optional `tools` array (names, `{ name }` or function tools); `undefined` when it declares none. */
export function toolNamesOf(agent: object): string[] | undefined {
  const tools = (agent as { readonly tools?: unknown }).tools;
  if (!Array.isArray(tools)) return undefined;
  const names: string[] = [];
  for (const tool of tools as unknown[]) {
    if (typeof tool === 'string') names.push(tool);
    else if (typeof tool === 'object' && tool !== null) {
      const named = tool as { readonly name?: unknown; readonly function?: { readonly name?: unknown } };
      const name = typeof named.name === 'string' ? named.name : named.function?.name;
      if (typeof name === 'string') names.push(name);
    }
  }
  return names;
}
