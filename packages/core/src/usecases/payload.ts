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

export const transcriptPayload = (record: ServedTranscript, parts: PayloadParts): Api.TranscriptPayload => {
  const words =
    parts.words && Transcript.hasWords(record.segments) ? Transcript.wordsOf(record.segments) : null
  return new Api.TranscriptPayload(
    {
      text: record.text,
      language: record.language,
      source: record.sourceKind,
      segments: parts.segments ? (parts.words ? record.segments : record.segments.map(withoutWords)) : [],
      paragraphs: parts.paragraphs ? Transcript.paragraphsOf(record.segments) : null,
      words
    },
    alreadyChecked
  )
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
