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
 *
 * The rule lives in core because every entry point pages the same way and their cursors are one
 * kind: the MCP tool `get_transcript` (whose budget counts a piece's text plus `pieceOverhead`)
 * and the REST read `GET /transcripts/{video_id}/pages` that GPT Actions call (whose budget counts
 * what a piece costs in the JSON answer, `jsonRule`, so that no answer passes the Actions limit).
 */
import { Api, Errors, Ids } from "@verbatim/domain"
import { Effect, Either, Option, Schema } from "effect"

/** Characters counted for a piece besides its text. */
export const pieceOverhead = 40

/**
 * The MCP tool's bounds: at the largest, its answer (the chunk as structured content and again as
 * text) stays under 90,000 characters, counted by `jsonRule`.
 */
export const chunkBudget = { min: 500, max: 40_000, default: 20_000 } as const

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

/** How a budget counts a piece: a fixed overhead plus a measure of its text. */
export interface ChunkRule {
  readonly overhead: number
  readonly measure: (text: string) => number
}

/** The MCP tool's rule: the text's length plus `pieceOverhead`. */
export const lengthRule: ChunkRule = { overhead: pieceOverhead, measure: (text) => text.length }

/**
 * A piece's cost in a JSON answer: its text as a JSON string (escapes counted) plus the most its
 * index and times can take (`{"segment":…,"start":…,"end":…,"text":""},` with 10-digit numbers).
 */
export const jsonRule: ChunkRule = { overhead: 70, measure: (text) => JSON.stringify(text).length }

/**
 * How much of `text` fits `room` under a measure: `cutPoint` on the raw text, then shrunk while
 * the measure (escapes) says it is still too long. Never nothing.
 */
const fit = (text: string, room: number, rule: ChunkRule): number => {
  let cut = cutPoint(text, room)
  while (cut > 1 && rule.measure(text.slice(0, cut)) > room) {
    const over = rule.measure(text.slice(0, cut)) - room
    cut = cutPoint(text, Math.max(1, cut - over))
  }
  return cut
}

/** The chunk of `segments` that starts at `from`, within `budget` characters. */
export const chunkAt = (
  segments: ReadonlyArray<TimedText>,
  from: Position,
  budget: number,
  rule: ChunkRule = lengthRule
): Chunk => {
  const pieces: Array<Piece> = []
  let used = 0
  let segment = from.segment
  let offset = from.offset
  while (segment < segments.length) {
    const current = segments[segment] as TimedText
    const rest = current.text.slice(offset)
    const cost = rule.measure(rest) + rule.overhead
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
    const room = budget - used - rule.overhead
    if (pieces.length > 0 && (cost <= budget || room < rule.overhead)) break
    const cut = fit(rest, room, rule)
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

/** The plain text rule: a piece costs its text as JSON escapes it, plus its line break. */
export const textRule: ChunkRule = { overhead: 2, measure: (text) => JSON.stringify(text).length - 2 }

/** A cursor that is not one, or not of this transcript: `invalid_request` naming `cursor`. */
export const cursorError = (why: string): Errors.ApiError =>
  Errors.rejection([{ path: ["cursor"], message: `the cursor ${why}; leave it out to start again` }])

/** The cursor a request sent, decoded; `invalid_request` on `cursor` when it is none of ours. */
export const requestedCursor = (
  cursor: string | undefined
): Effect.Effect<Option.Option<CursorValue>, Errors.ApiError> =>
  cursor === undefined
    ? Effect.succeedNone
    : Option.match(decodeCursor(cursor), {
        onNone: () =>
          Effect.fail(cursorError("is not a cursor that get_transcript or readTranscript returned")),
        onSome: (value) => Effect.succeed(Option.some(value))
      })

/**
 * The page of a stored transcript that a cursor (or the start) names, for GET
 * /transcripts/{video_id}/pages: every answer's JSON stays within the budget plus its fixed
 * fields (ids, title, cursor), so under the GPT Actions limit at the largest budget.
 */
export const transcriptPage = (
  transcript: Api.StoredTranscript,
  cursor: Option.Option<CursorValue>,
  query: { readonly format: Api.TranscriptPageFormat; readonly max_chars: number }
): Effect.Effect<Api.TranscriptPage, Errors.ApiError> => {
  const from = Option.match(cursor, { onNone: () => start, onSome: (value) => value.position })
  if (Option.isSome(cursor) && !within(transcript.segments, from)) {
    return Effect.fail(cursorError("points past the end of the transcript"))
  }
  const rule = query.format === "text" ? textRule : jsonRule
  // A title is part of every page: counted against the budget, so a long one cannot push it over.
  const fixed = JSON.stringify(transcript.video_title ?? "").length
  const chunk = chunkAt(transcript.segments, from, Math.max(chunkBudget.min, query.max_chars - fixed), rule)
  const pieces = chunk.pieces
  return Effect.succeed(
    new Api.TranscriptPage({
      id: transcript.id,
      video_id: transcript.video_id,
      video_title: transcript.video_title,
      language: transcript.language,
      source_kind: transcript.source_kind,
      format: query.format,
      segment_count: transcript.segments.length,
      character_count: transcript.text.length,
      first_segment: from.segment,
      continues_segment: from.offset > 0,
      ...(query.format === "text"
        ? { text: pieces.map((piece) => piece.text).join("\n") }
        : { segments: pieces.map((piece) => ({ ...piece })) }),
      has_more: Option.isSome(chunk.next),
      next_cursor: Option.match(chunk.next, {
        onNone: () => null,
        onSome: (position) => encodeCursor({ transcript: transcript.id, position })
      })
    })
  )
}
