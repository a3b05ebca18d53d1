/** The transcript as responses carry it, cut to what the caller asked for. */
import { Api, Transcript } from "@verbatim/domain"
import { Data, Option, Schema } from "effect"
import type { ServedTranscript } from "../ports/transcripts.js"

/**
 * How responses are built from records a schema has already decoded: without validating them a
 * second time (a class constructor validates its fields by default; the HTTP layer still checks
 * every response when it encodes it). On the hot paths this was a tenth of the CPU.
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

/**
 * Whether segments' JSON text as `JSON.stringify` writes it may hold word timings. In such text
 * `"words":` can only be a key (a quote inside a string is escaped), and only a segment has that
 * key; an empty `"words":[]` counts too, so a payload without words never takes such text as it is.
 */
const mayHaveWords = (json: string): boolean => json.includes('"words":')

/**
 * The stored JSON text of the record's segments when a payload with `parts` carries them exactly as
 * stored: segments asked for, and the words they hold asked for too (or they hold none).
 */
const segmentsAsStored = (
  record: ServedTranscript,
  parts: PayloadParts
): Option.Option<Transcript.SegmentsJson> => {
  const json = record.segmentsJson
  return json !== undefined && parts.segments && (parts.words || !mayHaveWords(json))
    ? Option.some(json)
    : Option.none()
}

/** The payload's fields, its segments given (values, or none where their text stands instead). */
const payloadWith = (
  record: ServedTranscript,
  parts: PayloadParts,
  segments: ReadonlyArray<Transcript.Segment>
): Api.TranscriptPayload =>
  new Api.TranscriptPayload(
    {
      text: record.text,
      language: record.language,
      source: record.sourceKind,
      segments,
      paragraphs: parts.paragraphs ? Transcript.paragraphsOf(record.segments) : null,
      words: parts.words && Transcript.hasWords(record.segments) ? Transcript.wordsOf(record.segments) : null
    },
    alreadyChecked
  )

const segmentsOf = (record: ServedTranscript, parts: PayloadParts): ReadonlyArray<Transcript.Segment> =>
  parts.segments ? (parts.words ? record.segments : record.segments.map(withoutWords)) : []

/** The payload of `record` cut to `parts`, its segments as values. */
export const transcriptPayload = (record: ServedTranscript, parts: PayloadParts): Api.TranscriptPayload =>
  payloadWith(record, parts, segmentsOf(record, parts))

/**
 * A payload whose segments may be JSON text: when `segmentsJson` holds the text, it is the
 * payload's segments (the payload's `segments` are then empty), and whoever writes the payload's
 * JSON writes that text where the segments go; otherwise the payload is whole.
 */
export interface PreEncodedPayload {
  readonly payload: Api.TranscriptPayload
  readonly segmentsJson: Option.Option<Transcript.SegmentsJson>
}

/**
 * The payload of `record` cut to `parts`, its segments as the text they were stored as when the
 * record has it and they are carried as they are: never parsed to be written back
 * (parsing and writing back the segments of an owned transcript was about a fifth of POST
 * /transcribe's CPU).
 */
export const preEncodedPayload = (record: ServedTranscript, parts: PayloadParts): PreEncodedPayload => {
  const segmentsJson = segmentsAsStored(record, parts)
  return {
    payload: Option.isSome(segmentsJson) ? payloadWith(record, parts, []) : transcriptPayload(record, parts),
    segmentsJson
  }
}

/** The payload with its segments as values: the text decoded where it stands for them. */
export const payloadValues = ({ payload, segmentsJson }: PreEncodedPayload): Api.TranscriptPayload =>
  Option.isNone(segmentsJson)
    ? payload
    : new Api.TranscriptPayload(
        { ...payload, segments: Transcript.decodeSegmentsJson(segmentsJson.value) },
        alreadyChecked
      )

/** `data` of an answer serving `record`, with its transcript's payload. */
const dataWith = (record: ServedTranscript, transcript: Api.TranscriptPayload): Api.TranscribeData =>
  new Api.TranscribeData(
    {
      video_id: record.videoId,
      transcript,
      video_title: record.videoTitle,
      ...(record.asrIntelligence === null ? {} : { asr_intelligence: record.asrIntelligence })
    },
    alreadyChecked
  )

export const transcribeData = (record: ServedTranscript, parts: PayloadParts): Api.TranscribeData =>
  dataWith(record, transcriptPayload(record, parts))

/**
 * A completed transcribe answer whose transcript's segments may be JSON text, as in
 * `PreEncodedPayload`: when `segmentsJson` holds the text, `answer.data.transcript.segments` are
 * empty and the text is them. What POST /transcribe answers an entry point that writes the answer's
 * JSON itself (`Transcribe.transcribePreEncoded`); `completedValues` makes the plain answer.
 */
export class PreEncodedCompleted extends Data.TaggedClass("PreEncodedCompleted")<{
  readonly answer: Api.TranscribeCompleted
  readonly segmentsJson: Option.Option<Transcript.SegmentsJson>
}> {}

/** A completed answer serving `record`, its segments as their stored text where they are carried as stored. */
export const preEncodedCompleted = (
  fields: Omit<Api.TranscribeCompleted, "data">,
  record: ServedTranscript,
  parts: PayloadParts
): PreEncodedCompleted => {
  const { payload, segmentsJson } = preEncodedPayload(record, parts)
  return new PreEncodedCompleted({
    answer: new Api.TranscribeCompleted({ ...fields, data: dataWith(record, payload) }, alreadyChecked),
    segmentsJson
  })
}

/** The plain answer: its segments as values. */
export const completedValues = ({ answer, segmentsJson }: PreEncodedCompleted): Api.TranscribeCompleted =>
  Option.isNone(segmentsJson)
    ? answer
    : new Api.TranscribeCompleted(
        {
          ...answer,
          data: new Api.TranscribeData(
            { ...answer.data, transcript: payloadValues({ payload: answer.data.transcript, segmentsJson }) },
            alreadyChecked
          )
        },
        alreadyChecked
      )

/** A POST /transcribe answer, or a completed one whose segments may be text (`PreEncodedCompleted`). */
export type TranscribeAnswer = Api.TranscribeResponse | PreEncodedCompleted

/** The plain answer of a `TranscribeAnswer`. */
export const answerValues = (answer: TranscribeAnswer): Api.TranscribeResponse =>
  answer instanceof PreEncodedCompleted ? completedValues(answer) : answer

/** The parts a job's webhook carries: its payload's `format` (as the request sent it), else the defaults. */
export const partsOfPayload = (payload: Api.FreeFormObject | null): PayloadParts => {
  const format = Schema.decodeUnknownOption(Api.FormatOptions)(payload?.format ?? {})
  return Option.match(format, {
    onNone: () => ({ segments: true, paragraphs: false, words: false }),
    onSome: (f) => ({ segments: f.timestamp, paragraphs: f.paragraphs, words: f.words })
  })
}
