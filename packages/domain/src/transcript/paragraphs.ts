/**
 * Paragraph groupings of a transcript. Consecutive segments (in start order, empty ones skipped)
 * join one paragraph until one of:
 * - a silence: the next segment starts at least `paragraphGapMs` after every earlier segment ended;
 * - a full paragraph: its text has reached `paragraphTargetChars` and its last segment ends a
 *   sentence (`.`, `!` or `?`, maybe followed by closing quotes or brackets);
 * - an overfull one: its text has reached `paragraphMaxChars`, sentence end or not (auto captions
 *   carry no punctuation).
 * A paragraph is a Segment: its segments' texts joined (as `textOf`), the start of its first
 * segment, and the latest end of any segment so far (never before its own start), cut to the next
 * paragraph's start so paragraphs never overlap (overlapping caption segments are common); the last
 * paragraph so ends at the transcript's latest end. Words are concatenated when present.
 */
import { sortByStart } from "./order.js"
import { Segment } from "./segment.js"
import { normalizeText, textOf } from "./text.js"

/** A silence this long (ms) or longer between segments starts a new paragraph. */
export const paragraphGapMs = 2000
/** A paragraph this long (characters) ends at the next sentence end. */
export const paragraphTargetChars = 400
/** A paragraph this long (characters) ends at the next segment boundary. */
export const paragraphMaxChars = 1200

export interface ParagraphOptions {
  readonly gapMs: number
  readonly targetChars: number
  readonly maxChars: number
}

export const paragraphDefaults: ParagraphOptions = {
  gapMs: paragraphGapMs,
  targetChars: paragraphTargetChars,
  maxChars: paragraphMaxChars
}

/** Whether a text ends a sentence: `.`, `!` or `?`, maybe followed by closing quotes or brackets. */
export const endsSentence = (text: string): boolean => /[.!?]["'\u201d\u2019)\]]*$/.test(text.trimEnd())

interface Group {
  readonly segments: Array<Segment>
  /** The latest end of any segment up to this group's last one. */
  end: number
  /** The length of the group's joined text. */
  length: number
  /** The normalized text of the group's last segment. */
  last: string
}

export const paragraphsOf = (
  segments: ReadonlyArray<Segment>,
  options: ParagraphOptions = paragraphDefaults
): ReadonlyArray<Segment> => {
  const groups: Array<Group> = []
  let current: Group | undefined
  for (const segment of sortByStart(segments)) {
    const text = normalizeText(segment.text)
    if (text.length === 0) continue
    if (
      current === undefined ||
      segment.start - current.end >= options.gapMs ||
      current.length >= options.maxChars ||
      (current.length >= options.targetChars && endsSentence(current.last))
    ) {
      current = { segments: [], end: Math.max(current?.end ?? 0, segment.start), length: -1, last: "" }
      groups.push(current)
    }
    current.segments.push(segment)
    current.end = Math.max(current.end, segment.end)
    current.length += text.length + 1
    current.last = text
  }
  return groups.map((group, i) => {
    const first = group.segments[0]
    const start = first === undefined ? 0 : first.start
    const next = groups[i + 1]?.segments[0]
    const end = next === undefined ? group.end : Math.min(group.end, next.start)
    const words = group.segments.flatMap((segment) => segment.words ?? [])
    const withWords = group.segments.some((segment) => segment.words !== undefined)
    return new Segment({ text: textOf(group.segments), start, end, ...(withWords ? { words } : {}) })
  })
}
