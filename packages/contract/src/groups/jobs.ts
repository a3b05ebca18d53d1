/** GET /jobs/{job_id} (200 when finished, 202 while running) and GET /jobs (newest first). */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Api, Ids } from "@verbatim/domain"
import { Schema } from "effect"
import { basePath } from "../base.js"
import { BadRequest, NotFound } from "../errors.js"
import { plainWords } from "../plain-words.js"
import { query } from "../query.js"
import { Authentication } from "../security.js"

export const JobPath = Schema.Struct({ job_id: Ids.JobId })

export class JobsGroup extends HttpApiGroup.make("jobs")
  .add(
    HttpApiEndpoint.get("job", "/jobs/:job_id")
      .setPath(plainWords(JobPath))
      .setUrlParams(plainWords(query(Api.JobQuery)))
      .addSuccess(Api.JobFinished)
      .addSuccess(Api.JobProcessing, { status: 202 })
      .addError(NotFound)
      .annotate(OpenApi.Summary, "A job: 200 when finished, 202 while running")
  )
  .add(
    HttpApiEndpoint.get("jobs", "/jobs")
      .setUrlParams(plainWords(query(Api.JobListQuery)))
      .addSuccess(Api.JobList)
      .annotate(OpenApi.Summary, "The account's jobs, newest first")
  )
  .addError(BadRequest)
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Every transcribe request is recorded as a job")
  .prefix(basePath) {}
