/** What may stand between a shared prefix and the rest of a title ("North Well — Q3", "North Well: Q3"). */
const SEPARATORS = /^[\s:;,.\-–—|·/]+/u;

/**
 * The words every one of `titles` starts with, when there are two or more and they share whole
 * words ("Reservoir Algae Survey" of "Reservoir Algae Survey — Q3" and "… — Q4"); undefined when
 * they share nothing worth dropping. Neighbours in a list (a project's reports) then read by what
 * tells them apart.
 */
export function sharedTitlePrefix(titles: ReadonlyArray<string | undefined>): string | undefined {
  const known = titles.filter((title): title is string => title !== undefined && title !== '');
  if (known.length < 2 || known.length < titles.length) {
    return undefined;
  }
  let prefix = known[0]!;
  for (const title of known.slice(1)) {
    let length = 0;
    while (length < prefix.length && length < title.length && prefix[length] === title[length]) {
      length++;
    }
    prefix = prefix.slice(0, length);
  }
  // Whole words only: a prefix ending inside a word of one title is cut back to the last boundary.
  const endsAtBoundary = known.every(
    (title) =>
      title.length === prefix.length || /^[\s:;,.\-–—|·/]/u.test(title.slice(prefix.length)),
  );
  if (!endsAtBoundary) {
    const boundary = Math.max(
      ...[...prefix.matchAll(/[\s:;,.\-–—|·/]/gu)].map((match) => match.index ?? -1),
    );
    prefix = boundary > 0 ? prefix.slice(0, boundary) : '';
  }
  prefix = prefix.replace(/[\s:;,.\-–—|·/]+$/u, '');
  return prefix.length >= 4 ? prefix : undefined;
}

/** A title without the prefix its neighbours share; undefined when nothing else is left. */
export function withoutSharedPrefix(
  title: string | undefined,
  prefix: string | undefined,
): string | undefined {
  if (!title || !prefix || !title.startsWith(prefix)) {
    return title;
  }
  return title.slice(prefix.length).replace(SEPARATORS, '').trim() || undefined;
}
