/**
 * Prepared statements on PostgreSQL for the hot queries. A statement whose text begins with
 * `preparedMarker` (a comment: `prepared(sql)` in a template) is sent as a named statement, named
 * after its text: PostgreSQL parses and plans it once per connection, and every later run only
 * binds and executes it. node-postgres keeps track of what each connection has prepared. Other
 * statements stay unnamed (planned on every run with their values, as before), so a query whose
 * best plan depends on its values (the list search) keeps custom plans. On PGlite the marker is only
 * a comment.
 *
 * Measured on this machine (issue 13): the three statements of an owned POST /transcribe took
 * 1.57 ms unnamed and 0.84 ms prepared.
 */
import { createHash } from "node:crypto"
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import type Pg from "pg"

/** How a statement asks to be prepared: its text starts with this comment. */
export const preparedMarker = "/* prepared */ "

/** The fragment that makes a statement prepared: `sql\`${prepared(sql)}SELECT ...\``. */
export const prepared = (sql: SqlClient.SqlClient): Statement.Fragment => sql.literal(preparedMarker)

const names = new Map<string, string>()

/** A statement's name: a digest of its text, so one text always gets one name. */
export const statementName = (text: string): string => {
  const known = names.get(text)
  if (known !== undefined) return known
  const name = `verbatim_${createHash("sha256").update(text).digest("hex").slice(0, 32)}`
  names.set(text, name)
  return name
}

/**
 * Makes a new pooled connection send the marked statements as named ones (the pool's `connect`
 * event: before the connection's first query).
 */
export const prepareMarkedStatements = (client: Pg.PoolClient): void => {
  const query: (...args: ReadonlyArray<unknown>) => unknown = client.query.bind(client)
  const named = (config: unknown, values?: unknown, callback?: unknown): unknown =>
    typeof config === "string" && config.startsWith(preparedMarker)
      ? query({ name: statementName(config), text: config }, values, callback)
      : query(config, values, callback)
  client.query = named as Pg.PoolClient["query"]
}
