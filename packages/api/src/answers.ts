/**
 * Answers carrying a transcript, encoded without walking its timed pieces through the schema.
 *
 * `Segment` and `Word` have only text and integer fields, which encode to themselves: an instance
 * serialises to the JSON its schema would encode (`JSON.stringify` writes its own fields). So the
 * answer is encoded with the schema except for its segments, paragraphs and words, which go into
 * the JSON as they are. On POST /transcribe of an owned transcript (a thousand words in 80-odd
 * segments), encoding every segment through the schema cost about a fifth of a millisecond of the
 * request's CPU. An owned transcript served again goes further: its answer comes as a
 * `PreEncodedCompleted`, whose segments are the JSON text they were stored as (a
 * `Transcript.SegmentsJson`, the schema's own encoding), put into the answer without being parsed
 * (`bench/RESULTS.md`). The test of this module pins that the JSON is the schema's, byte for byte.
 */
import { HttpServerResponse } from "@effect/platform"
import { PreEncodedCompleted } from "@verbatim/core"
import { Api } from "@verbatim/domain"
import { Effect, Option, Schema } from "effect"

const encodeCompleted = Schema.encode(Api.TranscribeCompleted)

/**
 * The JSON text of a completed transcribe answer, as its schema encodes it: a plain answer, or one
 * whose segments are JSON text (`PreEncodedCompleted`), the text written where they go.
 */
export const completedBody = (
  completed: Api.TranscribeCompleted | PreEncodedCompleted
): Effect.Effect<string> => {
  const { answer, segmentsJson } =
    completed instanceof PreEncodedCompleted ? completed : { answer: completed, segmentsJson: Option.none() }
  const { transcript } = answer.data
  const withoutPieces = new Api.TranscribeCompleted(
    {
      ...answer,
      data: new Api.TranscribeData(
        {
          ...answer.data,
          transcript: new Api.TranscriptPayload(
            {
              text: transcript.text,
              language: transcript.language,
              source: transcript.source,
              segments: [],
              paragraphs: transcript.paragraphs === null ? null : [],
              words: transcript.words === null ? null : []
            },
            true
          )
        },
        true
      )
    },
    true
  )
  // A value of ours that does not encode is a defect, never the caller's.
  return Effect.map(Effect.orDie(encodeCompleted(withoutPieces)), (encoded) => {
    if (Option.isNone(segmentsJson)) return bodyOf(encoded, transcript)
    const body = bodyOf(encoded, { segments: [], paragraphs: transcript.paragraphs, words: transcript.words })
    // The segments' text in place of their empty list: the first `"segments":[]` is theirs, as only
    // text fields come before them (their quotes escaped) and a key is followed by ':'.
    const at = body.indexOf(emptySegments)
    return `${body.slice(0, at)}"segments":${segmentsJson.value}${body.slice(at + emptySegments.length)}`
  })
}

const emptySegments = '"segments":[]'

type Pieces = Pick<Api.TranscriptPayload, "segments" | "paragraphs" | "words">

/** The answer's JSON text, the timed pieces written as they are. */
const bodyOf = (encoded: typeof Api.TranscribeCompleted.Encoded, transcript: Pieces): string =>
  JSON.stringify({
    ...encoded,
    data: {
      ...encoded.data,
      transcript: {
        ...encoded.data.transcript,
        segments: transcript.segments,
        paragraphs: transcript.paragraphs,
        words: transcript.words
      }
    }
  })

/** A completed transcribe answer (200) as its JSON response. */
export const completedResponse = (
  answer: Api.TranscribeCompleted | PreEncodedCompleted
): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
  Effect.map(completedBody(answer), (body) =>
    HttpServerResponse.text(body, { contentType: "application/json" })
  )
