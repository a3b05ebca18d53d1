/** Builds a migration from SQL statements, run one after the other (never several in one text). */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import type { Migration } from "../migrator.js"

export const statements = (...texts: ReadonlyArray<string>): Migration =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.forEach(texts, (text) => sql.unsafe(text), { discard: true })
  )
