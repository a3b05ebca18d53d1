/** Every use case, over the ports. */
import { Layer } from "effect"
import { AccessLive } from "./access.js"
import { AccountAdminLive } from "./account-admin.js"
import { BalanceLive } from "./balance.js"
import { JobQueriesLive } from "./job-queries.js"
import { StoredTranscriptsLive } from "./stored-transcripts.js"
import { TranscribeLive } from "./transcribe-live.js"

export { AccessLive, AccountAdminLive, BalanceLive, JobQueriesLive, StoredTranscriptsLive, TranscribeLive }

export const UseCasesLive = Layer.mergeAll(
  AccessLive,
  AccountAdminLive,
  BalanceLive,
  JobQueriesLive,
  StoredTranscriptsLive,
  TranscribeLive
)
