/** How many candidates a hint lists; the rest are counted. */
const LISTED = 10;

/**
 * A did-you-mean hint for an id that names nothing: the closest candidate within two edits, if any,
 * then the candidates themselves (the first ten), for example `did you mean "writer"? known: researcher, writer`.
 *
 * @internal
 */
export function suggestId(id: string, candidates: readonly string[], noun: string): string {
  const closest = closestId(id, candidates);
  const listed = candidates.slice(0, LISTED).join(', ');
  const more = candidates.length > LISTED ? ` and ${candidates.length - LISTED} more` : '';
  const known = candidates.length === 0 ? `no ${noun} is known` : `${noun}s: ${listed}${more}`;
  return closest === undefined ? known : `did you mean "${closest}"? ${known}`;
}

/** The candidate within two edits of `id` (insert, delete, substitute), the closest first. */
function closestId(id: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of candidates) {
    const distance = editDistance(id.toLowerCase(), candidate.toLowerCase(), bestDistance);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance, or `limit` as soon as it is known to be at least that. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin >= limit) return limit;
    previous = current;
  }
  return Math.min(previous[b.length] as number, limit);
}
