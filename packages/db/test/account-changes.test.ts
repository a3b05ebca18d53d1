/**
 * `AccountChangesSql` on PostgreSQL: listening starts at the first read of the version; a change
 * committed by any connection moves it; while the listening connection is gone there is no version
 * (the key cache serves nothing), and once it is back the version has moved (whatever changed
 * meanwhile was missed, so nothing read before is served again).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { AccountChanges } from "@verbatim/core"
import { Effect, Equal, Option, Redacted } from "effect"
import { AccountChangesSql, persistenceLayer, postgresTestLayer } from "../src/index.js"

const databaseUrl = process.env.DATABASE_URL?.trim() ?? ""

/** The version once `until` holds of it, polling every 10 ms for at most 10 s. */
const versionWhen = (until: (version: Option.Option<number>) => boolean) =>
  Effect.gen(function* () {
    const changes = yield* AccountChanges
    for (let i = 0; i < 1000; i++) {
      const version = yield* changes.version
      if (until(version)) return version
      yield* Effect.sleep("10 millis")
    }
    return yield* Effect.dieMessage("the version never reached the expected state")
  })

// Live clock: LISTEN/NOTIFY on real PostgreSQL connections, which come and go in real time.
describe.runIf(databaseUrl !== "")("AccountChangesSql on PostgreSQL", () => {
  it.live("a change moves the version; a lost listening connection leaves none until it is back", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const listening = yield* versionWhen(Option.isSome)
      yield* sql`INSERT INTO accounts (id, name, plan, default_mode, created_at)
        VALUES (gen_random_uuid(), 'a', 'free', 'auto', now())`
      yield* sql`UPDATE accounts SET plan = 'pro'`
      const changed = yield* versionWhen((v) => Option.isSome(v) && !Equal.equals(v, listening))
      expect(changed).not.toEqual(listening)

      const schema = (yield* sql<{ readonly schema: string }>`SELECT current_schema() AS schema`)[0]?.schema
      const ended = yield* sql<{ readonly ended: boolean }>`SELECT pg_terminate_backend(pid) AS ended
        FROM pg_stat_activity WHERE application_name = ${`${AccountChangesSql.applicationName}:${schema}`}`
      expect(ended.map((row) => row.ended)).toEqual([true])
      expect(yield* versionWhen(Option.isNone)).toEqual(Option.none())
      const back = yield* versionWhen(Option.isSome)
      expect(back).not.toEqual(changed)
    }).pipe(Effect.provide(persistenceLayer(postgresTestLayer(Redacted.make(databaseUrl)))))
  )
})
