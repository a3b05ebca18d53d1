/**
 * Every store port of core on one `SqlClient`, and the process's persistence: the database chosen
 * by configuration (`DatabaseLive`), migrated to the current schema before any repository is used.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type {
  AccountChanges,
  Accounts,
  Batches,
  Collections,
  IdempotencyKeys,
  Jobs,
  Ledger,
  OAuthStore,
  ThemesStore,
  Transactor,
  Transcripts,
  Uploads,
  WebhookDeliveries,
  WebSessionStore
} from "@verbatim/core"
import { type ConfigError, Layer } from "effect"
import * as AccountChangesSql from "./account-changes.js"
import { DatabaseLive } from "./client.js"
import { migrations } from "./migrations/index.js"
import * as Migrator from "./migrator.js"
import * as AccountsSql from "./repositories/accounts.js"
import * as BatchesSql from "./repositories/batches.js"
import * as CollectionsSql from "./repositories/collections.js"
import * as IdempotencySql from "./repositories/idempotency.js"
import * as JobsSql from "./repositories/jobs.js"
import * as LedgerSql from "./repositories/ledger.js"
import * as OAuthSql from "./repositories/oauth.js"
import * as ThemesSql from "./repositories/themes.js"
import * as TranscriptsSql from "./repositories/transcripts.js"
import * as UploadsSql from "./repositories/uploads.js"
import * as WebSessionsSql from "./repositories/web-sessions.js"
import * as WebhookDeliveriesSql from "./repositories/webhook-deliveries.js"
import * as TransactorSql from "./transactor.js"

/** The ports the repositories provide. */
export type Repositories =
  | Accounts
  | AccountChanges
  | Ledger
  | Jobs
  | Transcripts
  | Transactor
  | WebhookDeliveries
  | Uploads
  | Batches
  | Collections
  | IdempotencyKeys
  | OAuthStore
  | ThemesStore
  | WebSessionStore

/** The repositories over the `SqlClient` in context (which must hold the migrated schema). */
export const RepositoriesLive: Layer.Layer<
  Exclude<Repositories, AccountChanges>,
  never,
  SqlClient.SqlClient
> = Layer.mergeAll(
  AccountsSql.layer,
  LedgerSql.layer,
  JobsSql.layer,
  TranscriptsSql.layer,
  TransactorSql.layer,
  WebhookDeliveriesSql.layer,
  UploadsSql.layer,
  BatchesSql.layer,
  CollectionsSql.layer,
  IdempotencySql.layer,
  OAuthSql.layer,
  ThemesSql.layer,
  WebSessionsSql.layer
)

/** Applies Verbatim's migrations to the `SqlClient` in context when built. */
export const MigrationsLive: Layer.Layer<never, Migrator.MigrationError | SqlError, SqlClient.SqlClient> =
  Migrator.layer(migrations)

/**
 * The repositories and the news of account changes on a given database, migrated first; the
 * `SqlClient` is provided too.
 */
export const persistenceLayer = <E>(
  database: Layer.Layer<SqlClient.SqlClient, E>
): Layer.Layer<Repositories | SqlClient.SqlClient, E | Migrator.MigrationError | SqlError> =>
  Layer.merge(RepositoriesLive, AccountChangesSql.layer).pipe(
    Layer.provideMerge(Layer.merge(database, MigrationsLive.pipe(Layer.provide(database))))
  )

/** The repositories on the configured database (`DATABASE_URL`, else PGlite), migrated first. */
export const PersistenceLive: Layer.Layer<
  Repositories | SqlClient.SqlClient,
  ConfigError.ConfigError | SqlError | Migrator.MigrationError
> = persistenceLayer(DatabaseLive)
