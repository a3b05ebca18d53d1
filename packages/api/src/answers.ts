/**
 * Answers carrying a transcript, encoded without walking its timed pieces through the schema.
 *
 * `Segment` and `Word` have only text and integer fields, which encode to themselves: an instance
 * serialises to the JSON its schema would encode (`JSON.stringify` writes its own fields). So the
 * answer is encoded with the schema except for its segments, paragraphs and words, which go into
 * the JSON as they are. On POST /transcribe of an owned transcript (a thousand words in 80-odd
 * segments), encoding every segment through the schema cost about a fifth of a millisecond of the
 * request's CPU (issue 13). The test of this module pins that the JSON is the schema's, byte for byte.
 */
import { HttpServerResponse } from "@effect/platform"
import { Api } from "@verbatim/domain"
import { Effect, Schema } from "effect"

const encodeCompleted = Schema.encode(Api.TranscribeCompleted)

/** The JSON object of a completed transcribe answer, as its schema encodes it. */
export const completedJson = (
  answer: Api.TranscribeCompleted
): Effect.Effect<typeof Api.TranscribeCompleted.Encoded> => {
  const { transcript } = answer.data
  const withoutPieces = new Api.TranscribeCompleted(
    {
      ...answer,
      data: new Api.TranscribeData(
        {
          ...answer.data,
          transcript: new Api.TranscriptPayload(
            {
              ...transcript,
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
  return Effect.map(Effect.orDie(encodeCompleted(withoutPieces)), (encoded) => ({
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
  }))
}

/** A completed transcribe answer (200) as its JSON response. */
export const completedResponse = (
  answer: Api.TranscribeCompleted
): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
  Effect.flatMap(completedJson(answer), (body) => Effect.orDie(HttpServerResponse.json(body)))
