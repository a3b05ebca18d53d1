/**
 * @verbatim/db: the database clients (PostgreSQL and embedded PGlite) as `@effect/sql` `SqlClient`s,
 * Verbatim's schema as migrations, the repositories implementing core's store ports, and helpers to
 * read PostgreSQL errors. Repositories depend on `SqlClient` only.
 */
export * as AccountChangesSql from "./account-changes.js"
export * from "./client.js"
export * from "./direct.js"
export * from "./migrations/index.js"
export * as Migrator from "./migrator.js"
export * from "./persistence.js"
export * as PgliteClient from "./pglite.js"
export * from "./postgres-error.js"
export * from "./repositories/index.js"
export * as TransactorSql from "./transactor.js"
