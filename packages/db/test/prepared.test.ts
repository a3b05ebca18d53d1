/**
 * The hot statements are prepared on PostgreSQL (named, parsed and planned once per connection):
 * the owned-transcript read and the job insert of POST /transcribe, which the repositories run
 * through the prepared lane (`prepared.ts`). Other statements stay unnamed. PGlite prepares nothing.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { migrations } from "../src/migrations/index.js"
import { RepositoriesLive } from "../src/persistence.js"
import { statementNamePrefix } from "../src/prepared.js"
import { describeEachDatabase } from "./harness.js"
import { job, newAccount, repositories, transcript } from "./repositories/fixtures.js"

describeEachDatabase(
  "Prepared statements",
  (it, database) => {
    it.effect(
      "prepares the owned-transcript read and the job insert, once per connection, and nothing else",
      () =>
        Effect.gen(function* () {
          const { jobs, transcripts, transactor } = yield* repositories
          const sql = yield* SqlClient.SqlClient
          const account = yield* newAccount()
          const record = transcript(account.id)
          yield* transcripts.store(record)
          // One transaction: one connection, whose prepared statements PostgreSQL lists.
          const prepared = yield* transactor.transaction(
            Effect.gen(function* () {
              for (let i = 0; i < 3; i++) {
                const [owned] = yield* transcripts.owned(account.id, record.videoId, {
                  language: record.language
                })
                expect(owned?.id).toBe(record.id)
              }
              yield* jobs.insert(job(account.id, { transcriptId: record.id }))
              yield* jobs.insert(job(account.id))
              yield* transcripts.search(account.id, {
                search: "gardening",
                status: "succeeded",
                offset: 0,
                limit: 10,
                includeSegments: false
              })
              return yield* sql<{ readonly name: string; readonly statement: string }>`
              SELECT name, statement FROM pg_prepared_statements ORDER BY statement`
            })
          )
          if (database.name === "pglite") {
            expect(prepared).toEqual([])
            return
          }
          expect(prepared.map((row) => row.name.startsWith(statementNamePrefix))).toEqual([true, true])
          expect(prepared.map((row) => row.statement.startsWith("INSERT INTO jobs"))).toEqual([true, false])
          expect(prepared[1]?.statement.startsWith("SELECT transcripts.id")).toBe(true)
        }).pipe(Effect.provide(RepositoriesLive))
    )
  },
  { migrations }
)
