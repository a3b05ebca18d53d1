/**
 * POST /batch (202 processing, at once) and GET /batch/{batch_id} (202 while running, 200 when
 * finished; 429 with Retry-After after 60 fetches of a finished batch in 24 hours).
 */
import { HttpApiBuilder } from "@effect/platform"
import { VerbatimApi } from "@verbatim/contract"
import { BatchWork, CurrentAccount, Idempotency, Idempotent } from "@verbatim/core"
import { Effect } from "effect"
import { useCase } from "../use-case.js"

export const BatchHttp = HttpApiBuilder.group(VerbatimApi, "batch", (handlers) =>
  handlers
    .handle("createBatch", ({ headers, payload }) =>
      Effect.gen(function* () {
        const createBatch = Idempotent.createBatch(yield* Idempotency, yield* BatchWork)
        return yield* useCase(createBatch(yield* CurrentAccount, payload, headers["idempotency-key"]))
      })
    )
    .handle("estimateBatch", ({ payload }) =>
      Effect.gen(function* () {
        const batches = yield* BatchWork
        return yield* useCase(batches.estimate(yield* CurrentAccount, payload))
      })
    )
    .handle("batch", ({ path }) =>
      Effect.gen(function* () {
        const batches = yield* BatchWork
        return yield* useCase(batches.get(yield* CurrentAccount, path.batch_id))
      })
    )
)
