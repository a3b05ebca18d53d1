/**
 * GET /transcripts/{video_id}/pages (our addition): a stored transcript a page at a time, for
 * clients whose answers are bounded (GPT Actions: about 100,000 characters; a 3-hour transcript
 * is several times that as JSON). The paging rule and its cursors are core's
 * (`TranscriptChunks`), the same as the MCP tool get_transcript's: a cursor from one reads on in
 * the other. Free; each page is one request of the account's rate limit, like every read.
 */
import { HttpApiBuilder } from "@effect/platform"
import { VerbatimApi } from "@verbatim/contract"
import { CurrentAccount, StoredTranscripts, TranscriptChunks } from "@verbatim/core"
import { Effect, Option } from "effect"
import { useCase } from "../use-case.js"

export const TranscriptPagesHttp = HttpApiBuilder.group(VerbatimApi, "transcriptPages", (handlers) =>
  handlers.handle("page", ({ path, urlParams }) =>
    Effect.gen(function* () {
      const transcripts = yield* StoredTranscripts
      const cursor = yield* useCase(TranscriptChunks.requestedCursor(urlParams.cursor))
      // A cursor names its transcript: the next pages read the same one, whatever is stored meanwhile.
      const id = Option.match(cursor, { onNone: () => urlParams.id, onSome: (value) => value.transcript })
      const chosen = yield* useCase(
        transcripts.get(yield* CurrentAccount, path.video_id, {
          include_timestamps: true,
          format: "json",
          ...(id === undefined ? {} : { id }),
          ...(urlParams.language === undefined ? {} : { language: urlParams.language }),
          ...(urlParams.source === undefined ? {} : { source: urlParams.source })
        })
      )
      return yield* useCase(TranscriptChunks.transcriptPage(chosen.response, cursor, urlParams))
    })
  )
)
