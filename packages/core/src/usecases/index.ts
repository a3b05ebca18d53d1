/** Every use case, over the ports. */
import { Layer } from "effect"
import { AccessLive, keyCacheCapacity, keyCacheTtl } from "./access.js"
import { AccountAdminLive } from "./account-admin.js"
import { BalanceLive } from "./balance.js"
import { BatchWorkLive } from "./batch.js"
import { CollectionWorkLive, RecommendationsLive } from "./collections.js"
import { IdempotencyLive } from "./idempotency.js"
import { JobLifecycleLive } from "./job-lifecycle.js"
import { JobQueriesLive } from "./job-queries.js"
import { StoredTranscriptsLive } from "./stored-transcripts.js"
import { TranscribeLive } from "./transcribe-live.js"
import { TranslateLive } from "./translate.js"
import { MediaUploadsLive } from "./uploads.js"
import { VideoInfoLive } from "./video-info.js"

export * from "./asr-work.js"
export * from "./batch.js"
export * from "./collections.js"
export * from "./credit-holds.js"
export * from "./entry.js"
export * from "./idempotency.js"
export * from "./job-body.js"
export * from "./job-lifecycle.js"
export * from "./lanes.js"
export * from "./oauth.js"
export * from "./payload.js"
export * from "./platform-health.js"
export * from "./shared-fetches.js"
export * from "./sweeps.js"
export { makeTranscribe, type TranscribeOptions } from "./transcribe.js"
export * from "./uploads.js"
export * from "./video-info.js"
export * from "./worker.js"
export {
  AccessLive,
  AccountAdminLive,
  BalanceLive,
  JobQueriesLive,
  keyCacheCapacity,
  keyCacheTtl,
  StoredTranscriptsLive,
  TranscribeLive,
  TranslateLive,
  VideoInfoLive
}

/** The request-path use cases, and the job lifecycle they share with the worker. */
export const UseCasesLive = Layer.mergeAll(
  AccessLive,
  AccountAdminLive,
  BalanceLive,
  JobQueriesLive,
  StoredTranscriptsLive,
  TranscribeLive,
  TranslateLive,
  MediaUploadsLive,
  BatchWorkLive,
  CollectionWorkLive,
  RecommendationsLive,
  IdempotencyLive,
  VideoInfoLive
).pipe(Layer.provideMerge(JobLifecycleLive))
