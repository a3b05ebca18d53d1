/** Verbatim's schema, as one record of migrations for `Migrator.runMigrations` / `Migrator.layer`. */
import type { Migrations } from "../migrator.js"
import { accounts } from "./0001_accounts.js"
import { ledger } from "./0002_ledger.js"
import { transcripts } from "./0003_transcripts.js"
import { jobs } from "./0004_jobs.js"
import { work } from "./0005_work.js"

export const migrations: Migrations = {
  "0001_accounts": accounts,
  "0002_ledger": ledger,
  "0003_transcripts": transcripts,
  "0004_jobs": jobs,
  "0005_work": work
}
