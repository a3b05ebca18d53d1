/** Verbatim's schema, as one record of migrations for `Migrator.runMigrations` / `Migrator.layer`. */
import type { Migrations } from "../migrator.js"
import { accounts } from "./0001_accounts.js"
import { ledger } from "./0002_ledger.js"
import { transcripts } from "./0003_transcripts.js"
import { jobs } from "./0004_jobs.js"
import { work } from "./0005_work.js"
import { uploads } from "./0006_uploads.js"
import { batches } from "./0007_batches.js"
import { idempotency } from "./0008_idempotency.js"
import { oauth } from "./0009_oauth.js"
import { collections } from "./0010_collections.js"
import { batchItemVideos } from "./0011_batch_item_videos.js"
import { themes } from "./0012_themes.js"
import { accountChanges } from "./0013_account_changes.js"
import { transcriptSegmentsJson } from "./0014_transcript_segments_json.js"
import { searchIndexFastupdate } from "./0015_search_index_fastupdate.js"
import { creditHolds } from "./0016_credit_holds.js"
import { oauthSignIns } from "./0017_oauth_sign_ins.js"
import { uploadPutWindow } from "./0018_upload_put_window.js"
import { safeBalances } from "./0019_safe_balances.js"
import { oauthGrantCodes } from "./0020_oauth_grant_codes.js"
import { postLedgerEntry } from "./0021_post_ledger_entry.js"
import { batchItemsStatementChecks } from "./0022_batch_items_statement_checks.js"
import { postChargeOrRaise } from "./0023_post_charge_or_raise.js"
import { markBatchItemDone } from "./0024_mark_batch_item_done.js"
import { webSessions } from "./0045_web_sessions.js"
import { transcriptProvenance } from "./0046_transcript_provenance.js"
import { batchItemsRefusedUnrecorded } from "./0047_batch_items_refused_unrecorded.js"

export const migrations: Migrations = {
  "0001_accounts": accounts,
  "0002_ledger": ledger,
  "0003_transcripts": transcripts,
  "0004_jobs": jobs,
  "0005_work": work,
  "0006_uploads": uploads,
  "0007_batches": batches,
  "0008_idempotency": idempotency,
  "0009_oauth": oauth,
  "0010_collections": collections,
  "0011_batch_item_videos": batchItemVideos,
  "0012_themes": themes,
  "0013_account_changes": accountChanges,
  "0014_transcript_segments_json": transcriptSegmentsJson,
  "0015_search_index_fastupdate": searchIndexFastupdate,
  "0016_credit_holds": creditHolds,
  "0017_oauth_sign_ins": oauthSignIns,
  "0018_upload_put_window": uploadPutWindow,
  "0019_safe_balances": safeBalances,
  "0020_oauth_grant_codes": oauthGrantCodes,
  "0021_post_ledger_entry": postLedgerEntry,
  "0022_batch_items_statement_checks": batchItemsStatementChecks,
  "0023_post_charge_or_raise": postChargeOrRaise,
  "0024_mark_batch_item_done": markBatchItemDone,
  "0045_web_sessions": webSessions,
  "0046_transcript_provenance": transcriptProvenance,
  "0047_batch_items_refused_unrecorded": batchItemsRefusedUnrecorded
}
