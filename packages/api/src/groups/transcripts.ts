/**
 * Stored transcripts: GET /transcripts, GET /transcripts/{video_id} (JSON, or an export with
 * `format=srt|vtt|txt`), DELETE /transcripts/{video_id}, POST /transcripts/bulk-delete and
 * GET /transcripts/{video_id}/languages, and POST /transcripts/{video_id}/translate.
 */
import { HttpApiBuilder } from "@effect/platform"
import { VerbatimApi } from "@verbatim/contract"
import { CurrentAccount, StoredTranscripts, Translate } from "@verbatim/core"
import { Effect } from "effect"
import { exportResponse } from "../exports.js"
import { transcriptListResponse } from "../transcript-list.js"
import { useCase } from "../use-case.js"

export const TranscriptsHttp = HttpApiBuilder.group(VerbatimApi, "transcripts", (handlers) =>
  handlers
    .handle("translate", ({ path, payload }) =>
      Effect.gen(function* () {
        const translate = yield* Translate
        return yield* useCase(translate.translate(yield* CurrentAccount, path.video_id, payload))
      })
    )
    .handle("list", ({ urlParams }) =>
      Effect.gen(function* () {
        const transcripts = yield* StoredTranscripts
        return yield* transcriptListResponse(
          yield* useCase(transcripts.list(yield* CurrentAccount, urlParams))
        )
      })
    )
    .handle("get", ({ path, urlParams }) =>
      Effect.gen(function* () {
        const transcripts = yield* StoredTranscripts
        const chosen = yield* useCase(transcripts.get(yield* CurrentAccount, path.video_id, urlParams))
        return urlParams.format === "json"
          ? chosen.response
          : exportResponse(urlParams.format, chosen, urlParams.include_timestamps)
      })
    )
    .handle("remove", ({ path, urlParams }) =>
      Effect.gen(function* () {
        const transcripts = yield* StoredTranscripts
        return yield* useCase(transcripts.remove(yield* CurrentAccount, path.video_id, urlParams))
      })
    )
    .handle("bulkRemove", ({ payload }) =>
      Effect.gen(function* () {
        const transcripts = yield* StoredTranscripts
        return yield* useCase(transcripts.bulkRemove(yield* CurrentAccount, payload))
      })
    )
    .handle("languages", ({ path, urlParams }) =>
      Effect.gen(function* () {
        const transcripts = yield* StoredTranscripts
        return yield* useCase(transcripts.languages(yield* CurrentAccount, path.video_id, urlParams))
      })
    )
)
