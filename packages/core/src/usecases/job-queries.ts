/** GET /jobs/{job_id} and GET /jobs: the account's jobs as `jobBody` tells them. */
import { Api, Plan } from "@verbatim/domain"
import { Effect, Layer, Option } from "effect"
import { Jobs } from "../ports/jobs.js"
import { Transcripts } from "../ports/transcripts.js"
import { notFound } from "./failures.js"
import { jobBody, listItem } from "./job-body.js"
import { alreadyChecked } from "./payload.js"
import { JobQueries } from "./tags.js"

export const JobQueriesLive = Layer.effect(
  JobQueries,
  Effect.gen(function* () {
    const jobs = yield* Jobs
    const transcripts = yield* Transcripts

    return JobQueries.of({
      get: (account, id, query) =>
        Effect.gen(function* () {
          const found = yield* jobs.get(account.id, id)
          if (Option.isNone(found)) return yield* notFound(`job ${id}`, { job_id: id })
          const job = found.value
          const transcript =
            job.status === "completed" && job.transcriptId !== null
              ? yield* transcripts.get(account.id, job.transcriptId)
              : Option.none()
          return jobBody(job, transcript, {
            segments: query.include_segments,
            paragraphs: query.include_paragraphs,
            words: query.include_words
          })
        }),
      list: (account, query) =>
        jobs
          .list(account.id, {
            status: query.status,
            offset: Plan.pageOffset(query.page, query.limit),
            limit: query.limit
          })
          .pipe(
            Effect.map(
              (page) =>
                new Api.JobList(
                  {
                    jobs: page.items.map(listItem),
                    count: page.items.length,
                    pagination: Plan.paginate(page.total, query.page, query.limit)
                  },
                  alreadyChecked
                )
            )
          )
    })
  })
)
