/**
 * GET /videos/info (our addition): a free look at a video before paying anything, its title,
 * channel, duration, caption and translation languages, the price of each mode for this account
 * and what it owns (core's `VideoInfoLookup`). One request of the account's rate limit, like
 * every read; nothing is charged or stored.
 */
import { HttpApiBuilder } from "@effect/platform"
import { VerbatimApi } from "@verbatim/contract"
import { CurrentAccount, VideoInfoLookup } from "@verbatim/core"
import { Effect } from "effect"
import { useCase } from "../use-case.js"

export const VideosHttp = HttpApiBuilder.group(VerbatimApi, "videos", (handlers) =>
  handlers.handle("info", ({ urlParams }) =>
    Effect.gen(function* () {
      const lookup = yield* VideoInfoLookup
      return yield* useCase(lookup.info(yield* CurrentAccount, urlParams))
    })
  )
)
