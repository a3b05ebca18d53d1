/**
 * Snippets: short timed passages of a transcript, to show a model where a search matched (or how
 * a transcript opens) without the whole text.
 *
 * The search itself is the API's (`GET /transcripts?search=`, PostgreSQL full text with English
 * stemming over the text, the title and the video id). Here the matching segments are found again
 * for the snippet: a segment matches a search word when one of its words shares the word's stem,
 * approximated as a common prefix (`documentation` finds `documented`); words after `-` (excluded
 * by the search) and `or` are not looked for. A snippet is the matching segment with its
 * neighbours while they are short, cut to `snippetLength` characters around the match.
 */
import { Transcript } from "@verbatim/domain"

export const snippetLength = 240

export interface Snippet {
  readonly start: number
  readonly end: number
  readonly text: string
}

interface Timed {
  readonly text: string
  readonly start: number
  readonly end: number
}

const wordPattern = /[\p{L}\p{N}]+/gu

const wordsOf = (text: string): ReadonlyArray<string> => text.toLowerCase().match(wordPattern) ?? []

/** The words of a search to look for in segments. */
export const searchWords = (search: string): ReadonlyArray<string> => {
  const words = new Set<string>()
  for (const token of search.split(/\s+/)) {
    if (token.startsWith("-") || token.toLowerCase() === "or") continue
    for (const word of wordsOf(token)) if (word.length >= 2) words.add(word)
  }
  return [...words]
}

const commonPrefix = (a: string, b: string): number => {
  let n = 0
  while (n < a.length && n < b.length && a[n] === b[n]) n += 1
  return n
}

/** Whether a word of a segment matches a search word (same stem, roughly). */
const matches = (word: string, searched: string): boolean =>
  word === searched ||
  commonPrefix(word, searched) >= Math.min(searched.length, Math.max(4, searched.length - 5))

/** Where in `text` the first word matching one of `words` starts, if any. */
const matchIndex = (text: string, words: ReadonlyArray<string>): number | undefined => {
  for (const match of text.toLowerCase().matchAll(wordPattern)) {
    if (words.some((searched) => matches(match[0], searched))) return match.index
  }
  return undefined
}

/** `text` cut to `snippetLength` characters around `at`, with ellipses where it was cut. */
const around = (text: string, at: number): string => {
  if (text.length <= snippetLength) return text
  const from = Math.max(0, Math.min(at - Math.floor(snippetLength / 3), text.length - snippetLength))
  const to = from + snippetLength
  return `${from > 0 ? "…" : ""}${text.slice(from, to).trim()}${to < text.length ? "…" : ""}`
}

/** A passage from segment `first` to `last` (inclusive), cut around `at` (an offset in its text). */
const passage = (segments: ReadonlyArray<Timed>, first: number, last: number, at: number): Snippet => {
  const texts = segments
    .slice(first, last + 1)
    .map((s) => Transcript.normalizeText(s.text))
    .filter((text) => text.length > 0)
  return {
    start: (segments[first] as Timed).start,
    end: (segments[last] as Timed).end,
    text: around(texts.join(" "), at)
  }
}

/** Up to `max` snippets where `search` matches, in transcript order, none overlapping. */
export const searchSnippets = (
  segments: ReadonlyArray<Timed>,
  search: string,
  max: number
): ReadonlyArray<Snippet> => {
  const words = searchWords(search)
  const snippets: Array<Snippet> = []
  let covered = -1
  for (let i = 0; i < segments.length && snippets.length < max; i++) {
    if (i <= covered) continue
    const text = Transcript.normalizeText((segments[i] as Timed).text)
    const at = matchIndex(text, words)
    if (at === undefined) continue
    // Neighbours for context while the passage stays short.
    let first = i
    let last = i
    let length = text.length
    const size = (k: number) => Transcript.normalizeText((segments[k] as Timed).text).length + 1
    while (first - 1 > covered && length + size(first - 1) <= snippetLength / 2) {
      first -= 1
      length += size(first)
    }
    while (last + 1 < segments.length && length + size(last + 1) <= snippetLength) {
      last += 1
      length += size(last)
    }
    const offset = segments
      .slice(first, i)
      .reduce((sum, s) => sum + Transcript.normalizeText(s.text).length + 1, 0)
    snippets.push(passage(segments, first, last, offset + at))
    covered = last
  }
  return snippets
}

/** How a transcript opens: its first segments, up to `snippetLength` characters. */
export const openingSnippet = (segments: ReadonlyArray<Timed>): ReadonlyArray<Snippet> => {
  if (segments.length === 0) return []
  let last = 0
  let length = Transcript.normalizeText((segments[0] as Timed).text).length
  while (last + 1 < segments.length) {
    const next = Transcript.normalizeText((segments[last + 1] as Timed).text).length + 1
    if (length + next > snippetLength) break
    last += 1
    length += next
  }
  return [passage(segments, 0, last, 0)]
}
