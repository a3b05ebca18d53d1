/** The transcript as responses carry it, cut to what the caller asked for. */
import { Api, Transcript } from "@verbatim/domain"
import { Option, Schema } from "effect"
import type { ServedTranscript } from "../ports/transcripts.js"

/**
 * How responses are built from records a schema has already decoded: without validating them a
 * second time (a class constructor validates its fields by default; the HTTP layer still checks
 * every response when it encodes it). On the hot paths this was a tenth of the CPU (issue 13).
 */
export const alreadyChecked = { disableValidation: true } as const

export interface PayloadParts {
  /** Timestamped segments (`format.timestamp`, `include_segments`). */
  readonly segments: boolean
  /** Paragraph groupings (`format.paragraphs`, `include_paragraphs`). */
  readonly paragraphs: boolean
  /** Word timestamps, where the transcript has them (`format.words`, `include_words`). */
  readonly words: boolean
}

const withoutWords = (segment: Transcript.Segment): Transcript.Segment =>
  segment.words === undefined
    ? segment
    : new Transcript.Segment({ text: segment.text, start: segment.start, end: segment.end }, alreadyChecked)

/** The segments' JSON text of payloads built from it (`segmentsJsonOf`). */
const segmentsJsons = new WeakMap<Api.TranscriptPayload, string>()

/**
 * The JSON text a payload's `segments` encode to, when the payload was built from a stored
 * transcript's text (`ServedTranscript.segmentsJson`): an answer writes it as it is. Undefined for
 * any other payload, whose segments are encoded as usual.
 */
export const segmentsJsonOf = (payload: Api.TranscriptPayload): string | undefined =>
  segmentsJsons.get(payload)

/**
 * Whether segments' JSON text as `JSON.stringify` writes it may hold word timings. In such text
 * `"words":` can only be a key (a quote inside a string is escaped), and only a segment has that
 * key; an empty `"words":[]` counts too, so a payload without words never takes such text as it is.
 */
const mayHaveWords = (json: string): boolean => json.includes('"words":')

export const transcriptPayload = (record: ServedTranscript, parts: PayloadParts): Api.TranscriptPayload => {
  const json = record.segmentsJson
  const asStored = json !== undefined && parts.segments && (parts.words || !mayHaveWords(json))
  const words =
    parts.words && Transcript.hasWords(record.segments) ? Transcript.wordsOf(record.segments) : null
  const payload = new Api.TranscriptPayload(
    {
      text: record.text,
      language: record.language,
      source: record.sourceKind,
      segments: asStored
        ? []
        : parts.segments
          ? parts.words
            ? record.segments
            : record.segments.map(withoutWords)
          : [],
      paragraphs: parts.paragraphs ? Transcript.paragraphsOf(record.segments) : null,
      words
    },
    alreadyChecked
  )
  if (asStored) {
    // The stored segments as they are (the words they hold are asked for, or they hold none). Read
    // only when a caller needs them as values (MCP, batch results, an idempotency record): an
    // answer over HTTP writes their text (issue 13: parsing and writing back the segments of an
    // owned transcript was about a fifth of POST /transcribe's CPU).
    Object.defineProperty(payload, "segments", { enumerable: true, get: () => record.segments })
    segmentsJsons.set(payload, json)
  }
  return payload
}

export const transcribeData = (record: ServedTranscript, parts: PayloadParts): Api.TranscribeData =>
  new Api.TranscribeData(
    {
      video_id: record.videoId,
      transcript: transcriptPayload(record, parts),
      video_title: record.videoTitle,
      ...(record.asrIntelligence === null ? {} : { asr_intelligence: record.asrIntelligence })
    },
    alreadyChecked
  )

/** The parts a job's webhook carries: its payload's `format` (as the request sent it), else the defaults. */
export const partsOfPayload = (payload: Api.FreeFormObject | null): PayloadParts => {
  const format = Schema.decodeUnknownOption(Api.FormatOptions)(payload?.format ?? {})
  return Option.match(format, {
    onNone: () => ({ segments: true, paragraphs: false, words: false }),
    onSome: (f) => ({ segments: f.timestamp, paragraphs: f.paragraphs, words: f.words })
  })
}
