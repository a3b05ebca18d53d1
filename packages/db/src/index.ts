/**
 * @verbatim/db: the database clients (PostgreSQL and embedded PGlite) as `@effect/sql` `SqlClient`s,
 * migrations, and helpers to read PostgreSQL errors. Repositories depend on `SqlClient` only.
 */
export * from "./client.js"
export * as Migrator from "./migrator.js"
export * as PgliteClient from "./pglite-client.js"
export * from "./postgres-error.js"
