/** Every use case, over the ports. */
import { Layer } from "effect"
import { AccessLive } from "./access.js"
import { AccountAdminLive } from "./account-admin.js"
import { BalanceLive } from "./balance.js"
import { JobLifecycleLive } from "./job-lifecycle.js"
import { JobQueriesLive } from "./job-queries.js"
import { StoredTranscriptsLive } from "./stored-transcripts.js"
import { TranscribeLive } from "./transcribe-live.js"

export * from "./job-body.js"
export * from "./job-lifecycle.js"
export * from "./payload.js"
export * from "./test-work.js"
export * from "./worker.js"
export { AccessLive, AccountAdminLive, BalanceLive, JobQueriesLive, StoredTranscriptsLive, TranscribeLive }

/** The request-path use cases, and the job lifecycle they share with the worker. */
export const UseCasesLive = Layer.mergeAll(
  AccessLive,
  AccountAdminLive,
  BalanceLive,
  JobQueriesLive,
  StoredTranscriptsLive,
  TranscribeLive
).pipe(Layer.provideMerge(JobLifecycleLive))
