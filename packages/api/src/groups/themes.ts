/**
 * Themes of a stored transcript: POST /transcripts/{video_id}/themes (unlocks for 1 credit, once;
 * waits about 25 s, then 202 processing) and GET /transcripts/{video_id}/themes (never charges:
 * locked with `credits_required`, 202 processing, or the completed themes).
 */
import { HttpApiBuilder } from "@effect/platform"
import { VerbatimApi } from "@verbatim/contract"
import { CurrentAccount, Themes } from "@verbatim/core"
import { Effect } from "effect"
import { useCase } from "../use-case.js"

export const ThemesHttp = HttpApiBuilder.group(VerbatimApi, "themes", (handlers) =>
  handlers
    .handle("unlock", ({ path, urlParams }) =>
      Effect.gen(function* () {
        const themes = yield* Themes
        return yield* useCase(themes.unlock(yield* CurrentAccount, path.video_id, urlParams))
      })
    )
    .handle("get", ({ path, urlParams }) =>
      Effect.gen(function* () {
        const themes = yield* Themes
        return yield* useCase(themes.get(yield* CurrentAccount, path.video_id, urlParams))
      })
    )
)
