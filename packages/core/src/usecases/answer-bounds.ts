/**
 * How big an answer to an assistant may be, and how a longer one is cut: one policy for every
 * entry point an assistant reaches (the GPT Actions operations, the MCP tools).
 *
 * GPT Actions drop an answer over about 100,000 characters, after the work (and the credit) is
 * done; so every answer to an assistant stays within `assistantAnswerLimit` characters of JSON,
 * whatever the transcript's length. An answer carrying transcripts that would pass it carries the
 * head of each transcript instead (whole segments, in order, within an equal share of the room the
 * rest of the answer leaves), marked `truncated`, with the count of segments it holds, the call
 * that reads the rest (`continue_with`: readTranscript, GET /transcripts/{video_id}/pages, with a
 * cursor where the transcript's id is known) and a `note` saying so in words.
 *
 * The functions are pure, over an answer's JSON value: the HTTP layer applies them to the
 * answers of the GPT Actions routes; the MCP tools keep to the same limit with their own pages.
 */
import { Ids } from "@verbatim/domain"
import { Option, Schema } from "effect"
import { encodeCursor, type TimedText } from "./transcript-chunks.js"

/** The most characters of JSON an answer to an assistant holds (GPT Actions drop answers over ~100,000). */
export const assistantAnswerLimit = 90_000

/** The most mentions of one keyword an answer to an assistant lists; the rest are paged. */
export const mentionsPageLimit = 50

type Json = { [key: string]: unknown }

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isSegment = (value: unknown): value is TimedText =>
  isObject(value) && typeof value.text === "string" && typeof value.start === "number"

/** A transcript inside an answer: the object holding `text` and `segments`, and where its video is named. */
interface Found {
  readonly transcript: Json
  readonly videoId: string | undefined
  /** The stored transcript's id, when the answer names it (GET /transcripts/{video_id}). */
  readonly id: string | undefined
  readonly source: string | undefined
}

const isTranscript = (value: unknown): value is Json =>
  isObject(value) && typeof value.text === "string" && Array.isArray(value.segments)

/** Every transcript in an answer: a stored transcript, or `data.transcript` of a transcribe answer, job or batch result. */
const transcriptsIn = (value: unknown, into: Array<Found>): Array<Found> => {
  if (Array.isArray(value)) {
    for (const entry of value) transcriptsIn(entry, into)
    return into
  }
  if (!isObject(value)) return into
  if (isTranscript(value) && typeof value.video_id === "string" && typeof value.id === "string") {
    into.push({
      transcript: value,
      videoId: value.video_id,
      id: value.id,
      source: typeof value.source_kind === "string" ? value.source_kind : undefined
    })
    return into
  }
  if (isTranscript(value.transcript)) {
    into.push({
      transcript: value.transcript,
      videoId: typeof value.video_id === "string" ? value.video_id : undefined,
      id: undefined,
      source: typeof value.transcript.source === "string" ? value.transcript.source : undefined
    })
  }
  for (const entry of Object.values(value)) transcriptsIn(entry, into)
  return into
}

const size = (value: unknown): number => JSON.stringify(value).length

/**
 * The head of `text` that the first `count` segments make: found segment by segment in the text,
 * so its spacing is the stored one; the segments' texts joined by spaces when one is not found.
 */
const headText = (text: string, segments: ReadonlyArray<TimedText>, count: number): string => {
  let at = 0
  for (const segment of segments.slice(0, count)) {
    const found = text.indexOf(segment.text, at)
    if (found < 0) {
      return segments
        .slice(0, count)
        .map((each) => each.text)
        .join(" ")
    }
    at = found + segment.text.length
  }
  return text.slice(0, at)
}

/** `text` cut within `room` characters of JSON (at a space where one is near). */
const textWithin = (text: string, room: number): string => {
  let cut = Math.min(text.length, Math.max(0, room))
  while (cut > 0 && size(text.slice(0, cut)) > room) cut = Math.floor(cut * 0.9)
  const space = text.lastIndexOf(" ", cut)
  return space > cut / 2 && cut < text.length ? text.slice(0, space) : text.slice(0, cut)
}

/** How many of the first segments (with their head of the text) fit `room` characters of JSON. */
const segmentsWithin = (segments: ReadonlyArray<unknown>, room: number): number => {
  let used = 2
  let count = 0
  for (const segment of segments) {
    // Each segment is carried twice: as itself and as its words in the text.
    const cost = size(segment) + 1 + (isSegment(segment) ? size(segment.text) : 0)
    if (used + cost > room) break
    used += cost
    count += 1
  }
  return count
}

const describeCall = (found: Found, language: unknown, cursor: string | undefined): Json => ({
  operation: "readTranscript",
  method: "GET",
  path: `/transcripts/${found.videoId ?? "{video_id}"}/pages`,
  query: {
    ...(found.id === undefined ? {} : { id: found.id }),
    ...(typeof language === "string" ? { language } : {}),
    ...(found.source === undefined ? {} : { source: found.source }),
    ...(cursor === undefined ? {} : { cursor })
  }
})

/** Cuts one transcript to its head within `room` characters, marking it and naming the call for the rest. */
const cutTranscript = (found: Found, room: number): void => {
  const transcript = found.transcript
  const text = transcript.text as string
  const segments = transcript.segments as ReadonlyArray<unknown>
  const total = segments.length
  const kept = segmentsWithin(segments, room)
  const timed = segments.filter(isSegment)
  const cursor =
    found.id !== undefined && kept > 0 && kept < total
      ? Option.getOrUndefined(
          Option.map(Schema.decodeUnknownOption(Ids.TranscriptId)(found.id), (transcriptId) =>
            encodeCursor({ transcript: transcriptId, position: { segment: kept, offset: 0 } })
          )
        )
      : undefined
  const head = total > 0 ? headText(text, timed, kept) : textWithin(text, room)
  const call = describeCall(found, transcript.language, cursor)
  transcript.text = head
  transcript.segments = segments.slice(0, kept)
  transcript.truncated = true
  transcript.segments_included = kept
  transcript.segment_count = total
  transcript.character_count = text.length
  transcript.continue_with = call
  const where = Option.match(Option.fromNullable(cursor), {
    onNone: () => "from the start (it pages)",
    onSome: (value) => `with cursor=${value}`
  })
  transcript.note =
    total > 0
      ? `Only the first ${kept} of ${total} segments (${head.length} of ${text.length} characters) are in this answer: the whole transcript is too long for one. Read the rest with readTranscript on video ${found.videoId ?? ""} ${where}, calling again with next_cursor until it is null.`
      : `Only the first ${head.length} of ${text.length} characters are in this answer: the whole transcript is too long for one. Read it all with readTranscript on video ${found.videoId ?? ""}, calling again with next_cursor until it is null.`
}

/**
 * An answer within `limit` characters of JSON: the same answer when it fits; otherwise each
 * transcript it carries cut to its head (see the module's comment). An answer without transcripts
 * is given back as it is (its own route bounds it: themes page their mentions).
 */
export const boundedAnswer = (answer: unknown, limit: number = assistantAnswerLimit): unknown => {
  if (size(answer) <= limit) return answer
  const copy: unknown = JSON.parse(JSON.stringify(answer))
  const found = transcriptsIn(copy, [])
  if (found.length === 0) return answer
  // Room for notes, calls and markers of each transcript, besides its head.
  const markers = 900
  const emptied = found.map((each) => ({ text: each.transcript.text, segments: each.transcript.segments }))
  for (const each of found) {
    // Paragraphs and words repeat the text: a cut answer leaves them to readTranscript.
    if (Array.isArray(each.transcript.paragraphs)) each.transcript.paragraphs = null
    if (Array.isArray(each.transcript.words)) each.transcript.words = null
    each.transcript.text = ""
    each.transcript.segments = []
  }
  const envelope = size(copy)
  found.forEach((each, i) => {
    each.transcript.text = emptied[i]?.text
    each.transcript.segments = emptied[i]?.segments
  })
  const share = Math.max(0, Math.floor((limit - envelope) / found.length) - markers)
  for (const each of found) cutTranscript(each, share)
  return copy
}
