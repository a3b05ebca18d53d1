/** The SQL implementations of core's store ports, each as a module with `make` and `layer`. */
export * as AccountsSql from "./accounts.js"
export * as JobsSql from "./jobs.js"
export * as LedgerSql from "./ledger.js"
export * as TranscriptsSql from "./transcripts.js"
export * as WebhookDeliveriesSql from "./webhook-deliveries.js"
