/** GET /jobs/{job_id} (200 when finished, 202 while running) and GET /jobs (newest first). */
import { HttpApiBuilder } from "@effect/platform"
import { VerbatimApi } from "@verbatim/contract"
import { CurrentAccount, JobQueries } from "@verbatim/core"
import { Effect } from "effect"
import { useCase } from "../use-case.js"

export const JobsHttp = HttpApiBuilder.group(VerbatimApi, "jobs", (handlers) =>
  handlers
    .handle("job", ({ path, urlParams }) =>
      Effect.gen(function* () {
        const jobs = yield* JobQueries
        return yield* useCase(jobs.get(yield* CurrentAccount, path.job_id, urlParams))
      })
    )
    .handle("jobs", ({ urlParams }) =>
      Effect.gen(function* () {
        const jobs = yield* JobQueries
        return yield* useCase(jobs.list(yield* CurrentAccount, urlParams))
      })
    )
)
