/**
 * Compiled by the package's typecheck, never run: the client's requests are what a caller writes.
 * Fields the server defaults may be left out, bodies are plain objects, and an invalid value is a
 * compile error (each `@ts-expect-error` fails the typecheck if the line it marks compiles).
 */
import type { VerbatimClient } from "../src/client.js"

export const requests = (client: VerbatimClient): ReadonlyArray<unknown> => [
  // Queries: only what the caller means; page, include_timestamps and format have defaults.
  client.jobs.jobs({ urlParams: { limit: 2 } }),
  client.jobs.jobs({ urlParams: {} }),
  client.transcripts.get({ path: { video_id: "dQw4w9WgXcQ" }, urlParams: {} }),
  client.transcripts.list({ urlParams: { page: 2 } }),
  // Bodies: plain objects, format and asr_options left out or given as plain objects.
  client.transcribe.transcribe({ payload: { video: "dQw4w9WgXcQ", mode: "captions_only" }, headers: {} }),
  client.transcribe.transcribe({
    payload: { video: "dQw4w9WgXcQ", format: { timestamp: false } },
    headers: {}
  }),
  client.transcribe.estimate({ payload: { video: "dQw4w9WgXcQ" } }),
  client.transcribe.transcribe({
    // @ts-expect-error a mode the API does not have
    payload: { video: "dQw4w9WgXcQ", mode: "fastest" },
    headers: {}
  }),
  // @ts-expect-error `format` of a transcribe body is an object of options, not an export format
  client.transcribe.transcribe({ payload: { video: "dQw4w9WgXcQ", format: "srt" }, headers: {} }),
  // @ts-expect-error srt is an export format of GET /transcripts/{video_id}, no job format
  client.jobs.jobs({ urlParams: { status: "srt" } }),
  // @ts-expect-error limit is a number
  client.jobs.jobs({ urlParams: { limit: "two" } })
]
