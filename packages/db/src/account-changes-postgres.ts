/**
 * The PostgreSQL side of `AccountChanges` (see `account-changes.ts`): one connection of its own
 * LISTENs on the channel of migration 0013. Loaded only when the `SqlClient` is not PGlite's, so a
 * process on PGlite never loads node-postgres.
 */

import type * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import { AccountChanges } from "@verbatim/core"
import { Clock, Deferred, Duration, Effect, Redacted, Schedule, type Scope } from "effect"
import Pg from "pg"
import {
  applicationName,
  heartbeatEvery,
  retryEvery,
  serviceOf,
  type Tracker
} from "./account-changes-tracker.js"
import { accountChangesChannel } from "./migrations/0013_account_changes.js"

export const isPgClient = (sql: SqlClient.SqlClient): sql is PgClient.PgClient => PgClient.TypeId in sql

const clientConfig = (config: PgClient.PgClientConfig): Pg.ClientConfig => ({
  ...(config.url === undefined
    ? {
        host: config.host,
        port: config.port,
        database: config.database,
        user: config.username,
        password: config.password === undefined ? undefined : Redacted.value(config.password)
      }
    : { connectionString: Redacted.value(config.url) }),
  ...(config.ssl === undefined ? {} : { ssl: config.ssl }),
  application_name: applicationName,
  keepAlive: true,
  connectionTimeoutMillis: Duration.toMillis(heartbeatEvery)
})

const listenFailure = (cause: unknown) =>
  new SqlError({ cause, message: "Failed to listen for account changes" })

/**
 * One listening session: connects, LISTENs, marks the tracker live (moving its version), and
 * returns when the connection breaks or misses a heartbeat; the tracker is not live after it.
 */
const session = (config: Pg.ClientConfig, tracker: Tracker) =>
  Effect.gen(function* () {
    const broken = yield* Deferred.make<void>()
    const lost = () => {
      tracker.live = false
      Deferred.unsafeDone(broken, Effect.void)
    }
    const client = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const client = new Pg.Client(config)
          client.on("error", lost)
          client.on("end", lost)
          await client.connect()
          return client
        },
        catch: listenFailure
      }),
      (client) => Effect.promise(() => client.end()).pipe(Effect.timeoutOption(1000), Effect.ignore)
    )
    const query = <Row extends Pg.QueryResultRow>(text: string) =>
      Effect.tryPromise({ try: () => client.query<Row>(text), catch: listenFailure }).pipe(
        Effect.timeoutFail({ duration: heartbeatEvery, onTimeout: () => listenFailure("no answer") })
      )
    // Changes to the tables this connection sees (its search path), not to other schemas'.
    const schema = (yield* query<{ readonly schema: string }>("SELECT current_schema() AS schema")).rows[0]
      ?.schema
    client.on("notification", (message) => {
      if (message.channel === accountChangesChannel && message.payload === schema) tracker.version += 1
    })
    // Named after its schema, so an operator (or a test) can tell the listeners of databases apart.
    yield* query(
      `SET application_name = ${Pg.escapeLiteral(`${applicationName}:${schema ?? ""}`.slice(0, 63))}`
    )
    yield* query(`LISTEN ${accountChangesChannel}`)
    tracker.version += 1
    tracker.live = true
    yield* Effect.logDebug("account changes: listening")
    const heartbeat = query("SELECT 1").pipe(Effect.repeat(Schedule.spaced(heartbeatEvery)))
    // Listening ends when the connection breaks or a heartbeat fails: either way, it was lost.
    yield* Effect.raceFirst(Deferred.await(broken), Effect.ignore(heartbeat))
  }).pipe(Effect.scoped, Effect.ensuring(Effect.sync(() => (tracker.live = false))))

/**
 * Listens from the first time the version is asked for (an authenticated request), so processes
 * that never authenticate (workers, admin commands) hold no listening connection.
 */
export const listenOnPostgres = (
  config: PgClient.PgClientConfig
): Effect.Effect<AccountChanges["Type"], never, Scope.Scope> =>
  Effect.gen(function* () {
    const tracker: Tracker = { version: 0, live: false }
    const settings = clientConfig(config)
    const scope = yield* Effect.scope
    const listening = session(settings, tracker).pipe(
      Effect.matchCauseEffect({
        onFailure: (cause) => Effect.logDebug("account changes: cannot listen", cause),
        onSuccess: () =>
          Effect.logWarning(
            "account changes: the listening connection was lost; API keys are looked up on every request until it is back"
          )
      }),
      Effect.repeat(Schedule.spaced(retryEvery)),
      // Heartbeats and retries keep real time, also under a test clock.
      Effect.withClock(Clock.make()),
      Effect.interruptible
    )
    let started = false
    const service = serviceOf(tracker)
    const start = Effect.suspend(() => {
      started = true
      return Effect.forkIn(listening, scope)
    })
    return AccountChanges.of({
      ...service,
      version: Effect.suspend(() => (started ? service.version : Effect.zipRight(start, service.version)))
    })
  })
