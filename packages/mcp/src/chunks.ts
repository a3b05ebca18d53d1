/**
 * A transcript read in chunks, so that a long one never overflows a model's context.
 *
 * A chunk is a run of the transcript's segments, in their stored order, each as a piece with the
 * segment's index, start and end (ms) and text, within a budget of characters: every piece costs
 * its text plus `pieceOverhead` (its index, times and the punctuation around them). A segment that
 * does not fit whole into a chunk of its own is cut (at a space where one is near, never inside a
 * UTF-16 surrogate pair), its pieces in consecutive chunks carrying the same index and times.
 *
 * The chunks of a transcript join to the whole: concatenating the texts of the pieces of each
 * index, in order, gives back every segment exactly as stored.
 *
 * Where the next chunk starts is a cursor: an opaque base64url string naming the transcript, the
 * segment and the offset in its text, so a later call reads the same transcript even when another
 * one of the video has been stored meanwhile.
 */
import { Ids } from "@verbatim/domain"
import { Either, Option, Schema } from "effect"

/** Characters counted for a piece besides its text. */
export const pieceOverhead = 40

/** The smallest and largest chunk budgets a caller may ask for, and the default. */
export const chunkBudget = { min: 500, max: 100_000, default: 20_000 } as const

export interface Position {
  /** Index of the segment in the transcript. */
  readonly segment: number
  /** Offset in the segment's text (UTF-16 code units). */
  readonly offset: number
}

export const start: Position = { segment: 0, offset: 0 }

export interface TimedText {
  readonly text: string
  readonly start: number
  readonly end: number
}

export interface Piece extends TimedText {
  readonly segment: number
}

export interface Chunk {
  readonly pieces: ReadonlyArray<Piece>
  /** Where the next chunk starts; none after the last chunk. */
  readonly next: Option.Option<Position>
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff

/**
 * How much of `text` (longer than `room`) to take: up to the last space in the second half of
 * the room when there is one, else the room itself; never between the halves of a surrogate pair,
 * never nothing.
 */
export const cutPoint = (text: string, room: number): number => {
  const limit = Math.max(1, Math.min(room, text.length))
  const space = text.lastIndexOf(" ", limit - 1)
  let cut = space >= Math.floor(limit / 2) ? space + 1 : limit
  if (cut < text.length && cut > 1 && isHighSurrogate(text.charCodeAt(cut - 1))) cut -= 1
  return cut
}

/** The chunk of `segments` that starts at `from`, within `budget` characters. */
export const chunkAt = (segments: ReadonlyArray<TimedText>, from: Position, budget: number): Chunk => {
  const pieces: Array<Piece> = []
  let used = 0
  let segment = from.segment
  let offset = from.offset
  while (segment < segments.length) {
    const current = segments[segment] as TimedText
    const rest = current.text.slice(offset)
    const cost = rest.length + pieceOverhead
    const piece = (text: string): Piece => ({ segment, start: current.start, end: current.end, text })
    if (used + cost <= budget) {
      pieces.push(piece(rest))
      used += cost
      segment += 1
      offset = 0
      continue
    }
    // It does not fit. A segment that fits a chunk of its own starts the next chunk; a longer one
    // is cut, filling what is left of this chunk (or all of it, when it is the first piece).
    const room = budget - used - pieceOverhead
    if (pieces.length > 0 && (cost <= budget || room < pieceOverhead)) break
    const cut = cutPoint(rest, room)
    pieces.push(piece(rest.slice(0, cut)))
    offset += cut
    break
  }
  return {
    pieces,
    next: segment < segments.length ? Option.some({ segment, offset }) : Option.none()
  }
}

/** The cursor's content: transcript, segment, offset. */
const CursorFields = Schema.Struct({
  t: Ids.TranscriptId,
  s: Schema.NonNegativeInt,
  o: Schema.NonNegativeInt
})

/** A cursor on the wire: base64url of the JSON of its fields. */
export const Cursor = Schema.compose(Schema.StringFromBase64Url, Schema.parseJson(CursorFields)).annotations({
  identifier: "Cursor",
  description: "Where the next chunk of a transcript starts, as get_transcript returned it"
})

export interface CursorValue {
  readonly transcript: Ids.TranscriptId
  readonly position: Position
}

export const encodeCursor = (cursor: CursorValue): string =>
  Schema.encodeSync(Cursor)({ t: cursor.transcript, s: cursor.position.segment, o: cursor.position.offset })

/** A cursor's transcript and position; none when the text is no cursor. */
export const decodeCursor = (text: string): Option.Option<CursorValue> =>
  Either.getRight(Schema.decodeUnknownEither(Cursor)(text)).pipe(
    Option.map((fields) => ({ transcript: fields.t, position: { segment: fields.s, offset: fields.o } }))
  )

/** Whether a position lies inside the segments (a cursor of this transcript). */
export const within = (segments: ReadonlyArray<TimedText>, position: Position): boolean => {
  const segment = segments[position.segment]
  return segment !== undefined && position.offset < Math.max(1, segment.text.length)
}
