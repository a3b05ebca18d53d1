/**
 * Where a library search matched inside each transcript: the segments that hold a searched word
 * (the same word or one of its forms, by a shared stem), each with its time. The search itself is the
 * API's (PostgreSQL full text with English stemming); this only points at the passages.
 */
export interface Timed {
  readonly text: string
  readonly start: number
  readonly end: number
}

/** The stems of a search's words: quoted phrases split, `-excluded` words and `or` left out. */
export const searchStems = (search: string): ReadonlyArray<string> => {
  const stems = new Set<string>()
  for (const token of search.toLowerCase().split(/\s+/)) {
    if (token.startsWith("-") || token === "or") continue
    for (const word of token.match(/[\p{L}\p{N}]+/gu) ?? []) {
      if (word.length >= 2) stems.add(word.length > 5 ? word.slice(0, Math.max(4, word.length - 5)) : word)
    }
  }
  return [...stems]
}

/** Whether `text` holds a word that starts with one of `stems`. */
export const holdsStem = (text: string, stems: ReadonlyArray<string>): boolean => {
  const lower = text.toLowerCase()
  return stems.some((stem) => {
    let at = lower.indexOf(stem)
    while (at >= 0) {
      if (at === 0 || !/[\p{L}\p{N}]/u.test(lower[at - 1] ?? "")) return true
      at = lower.indexOf(stem, at + 1)
    }
    return false
  })
}

/** Up to `max` segments where the search matched, in order. */
export const matchingSegments = <A extends Timed>(
  segments: ReadonlyArray<A>,
  search: string,
  max = 3
): ReadonlyArray<A> => {
  const stems = searchStems(search)
  if (stems.length === 0) return []
  const found: Array<A> = []
  for (const segment of segments) {
    if (found.length >= max) break
    if (holdsStem(segment.text, stems)) found.push(segment)
  }
  return found
}
