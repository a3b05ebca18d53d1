/**
 * The database being unavailable, told apart from a wrong statement: which failures count
 * (`isDatabaseUnavailable`), the repositories marking them on `PersistenceError`, the timeout
 * settings, and on PostgreSQL the bounds themselves: a refused address, a server that accepts
 * connections and never answers, and a statement longer than `statement_timeout`.
 */
import { createServer, type Server, type Socket } from "node:net"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { describe, expect, it } from "@effect/vitest"
import { Cause, ConfigProvider, Effect, Either, Exit, Fiber, Layer, Option, Redacted } from "effect"
import Pg from "pg"
import {
  DatabaseConfig,
  databaseUrlProblem,
  defaultConnectTimeoutMs,
  defaultStatementTimeoutMs,
  postgresLayer,
  postgresTestLayer
} from "../src/client.js"
import { isDatabaseUnavailable } from "../src/postgres-error.js"
import { operation } from "../src/repositories/failure.js"
import { make as makeTransactor } from "../src/transactor.js"

const databaseUrl = process.env.DATABASE_URL?.trim() ?? ""

const pgError = (code: string) => Object.assign(new Error(`server error ${code}`), { code })
const sqlError = (cause: unknown) => new SqlError({ cause, message: "Failed to execute statement" })
const refused = () =>
  new AggregateError(
    [
      Object.assign(new Error("connect ECONNREFUSED ::1:5432"), { code: "ECONNREFUSED" }),
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" })
    ],
    ""
  )

describe("isDatabaseUnavailable", () => {
  it.each([
    ["connection failure (08006)", sqlError(pgError("08006"))],
    ["cannot connect now (57P03)", sqlError(pgError("57P03"))],
    ["admin shutdown (57P01)", sqlError(pgError("57P01"))],
    ["too many connections (53300)", sqlError(pgError("53300"))],
    ["statement timeout (57014)", sqlError(pgError("57014"))],
    ["refused on every address", sqlError(refused())],
    ["reset", sqlError(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }))],
    ["timed out connecting", sqlError(Object.assign(new Error("connect ETIMEDOUT"), { code: "ETIMEDOUT" }))],
    ["no answer within query_timeout", sqlError(new Error("Query read timeout"))],
    ["no free pooled connection", sqlError(new Error("timeout exceeded when trying to connect"))],
    ["connection dropped", sqlError(new Error("Connection terminated unexpectedly"))]
  ])("counts %s", (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true)
  })

  it.each([
    ["a unique violation", sqlError(pgError("23505"))],
    ["a foreign key violation", sqlError(pgError("23503"))],
    ["an unknown table", sqlError(pgError("42P01"))],
    ["a serialization failure", sqlError(pgError("40001"))],
    ["a bug", new Error("boom")],
    ["nothing", undefined]
  ])("does not count %s", (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false)
  })

  it.effect("repositories mark the PersistenceError unavailable, and only then", () =>
    Effect.gen(function* () {
      const down = yield* Effect.flip(operation("Accounts.get")(Effect.fail(sqlError(refused()))))
      expect(down).toMatchObject({ _tag: "PersistenceError", operation: "Accounts.get", unavailable: true })
      const bug = yield* Effect.flip(operation("Accounts.get")(Effect.fail(sqlError(pgError("42P01")))))
      expect(bug.unavailable).toBe(false)
    })
  )
})

const readConfig = (env: Record<string, string>) =>
  Effect.runSync(Effect.either(Effect.withConfigProvider(DatabaseConfig, ConfigProvider.fromJson(env))))

describe("DatabaseConfig timeouts and address", () => {
  it("defaults: 5 s to connect, 15 s per statement", () => {
    const settings = Either.getOrThrow(readConfig({}))
    expect(settings.pool).toEqual({
      maxConnections: 10,
      connectTimeoutMs: defaultConnectTimeoutMs,
      statementTimeoutMs: defaultStatementTimeoutMs
    })
    expect([defaultConnectTimeoutMs, defaultStatementTimeoutMs]).toEqual([5_000, 15_000])
  })

  it("reads DATABASE_CONNECT_TIMEOUT_MS and DATABASE_STATEMENT_TIMEOUT_MS (0: no statement timeout)", () => {
    const settings = Either.getOrThrow(
      readConfig({ DATABASE_CONNECT_TIMEOUT_MS: "1500", DATABASE_STATEMENT_TIMEOUT_MS: "0" })
    )
    expect(settings.pool).toMatchObject({ connectTimeoutMs: 1500, statementTimeoutMs: 0 })
  })

  it.each([
    [{ DATABASE_CONNECT_TIMEOUT_MS: "0" }, "DATABASE_CONNECT_TIMEOUT_MS"],
    [{ DATABASE_CONNECT_TIMEOUT_MS: "soon" }, "DATABASE_CONNECT_TIMEOUT_MS"],
    [{ DATABASE_STATEMENT_TIMEOUT_MS: "-1" }, "DATABASE_STATEMENT_TIMEOUT_MS"],
    [{ DATABASE_URL: "garbage" }, "DATABASE_URL"],
    [{ DATABASE_URL: "http://db.example:5432/verbatim" }, "DATABASE_URL"],
    [{ DATABASE_URL: "postgres://" }, "DATABASE_URL"]
  ])("refuses %j naming the variable", (env, variable) => {
    const result = readConfig(env)
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isLeft(result)) expect(String(result.left)).toContain(variable)
  })

  it("accepts postgres:// and postgresql:// URLs, with a host or a socket", () => {
    for (const url of [
      "postgres://user@127.0.0.1:5432/test",
      "postgresql://user:secret@db.example/verbatim?sslmode=require",
      "postgres:///test?host=/var/run/postgresql"
    ]) {
      expect(databaseUrlProblem(url), url).toEqual(Option.none())
      expect(Either.isRight(readConfig({ DATABASE_URL: url })), url).toBe(true)
    }
    expect(Option.getOrThrow(databaseUrlProblem("http://db.example/x"))).toContain("postgres://")
  })
})

/** A port nothing listens on. */
const closedPort = Effect.async<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

/** A server that accepts connections and never answers: a frozen database. */
const silentServer = Effect.acquireRelease(
  Effect.async<{ readonly server: Server; readonly port: number; readonly sockets: Set<Socket> }>(
    (resume) => {
      const sockets = new Set<Socket>()
      const server = createServer((socket) => {
        sockets.add(socket)
        socket.on("error", () => {})
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        resume(
          Effect.succeed({
            server,
            sockets,
            port: typeof address === "object" && address !== null ? address.port : 0
          })
        )
      })
    }
  ),
  ({ server, sockets }) =>
    Effect.async<void>((resume) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resume(Effect.void))
    })
)

const elapsed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const start = Date.now()
    const exit = yield* Effect.exit(effect)
    return { exit, ms: Date.now() - start }
  })

const firstError = <A, E>(exit: Exit.Exit<A, E>): unknown =>
  Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined

// Live clock: PostgreSQL's own time limits (statement_timeout, the pool's wait) run in real time.
describe.runIf(databaseUrl !== "")("PostgreSQL timeouts (DATABASE_URL)", () => {
  it.live(
    "an address nothing listens on fails at once, as unavailable",
    () =>
      Effect.gen(function* () {
        const port = yield* closedPort
        const url = Redacted.make(`postgres://root@127.0.0.1:${port}/test`)
        const { exit, ms } = yield* elapsed(
          Layer.build(postgresLayer(url, { maxConnections: 2, connectTimeoutMs: 500 })).pipe(Effect.scoped)
        )
        expect(Exit.isFailure(exit)).toBe(true)
        const error = firstError(exit)
        expect(error).toBeInstanceOf(SqlError)
        expect(String((error as SqlError).message)).toContain(`127.0.0.1:${port}/test`)
        expect(isDatabaseUnavailable(error)).toBe(true)
        expect(ms).toBeLessThan(3_000)
      }),
    20_000
  )

  it.live(
    "a server that never answers fails within the connect timeout, as unavailable",
    () =>
      Effect.gen(function* () {
        const { port } = yield* silentServer
        const url = Redacted.make(`postgres://root@127.0.0.1:${port}/test`)
        const { exit, ms } = yield* elapsed(
          Layer.build(postgresLayer(url, { maxConnections: 2, connectTimeoutMs: 400 })).pipe(Effect.scoped)
        )
        expect(Exit.isFailure(exit)).toBe(true)
        expect(isDatabaseUnavailable(firstError(exit))).toBe(true)
        expect(ms).toBeLessThan(3_000)
      }).pipe(Effect.scoped),
    20_000
  )

  it.live(
    "every connection carries statement_timeout; a longer statement is cancelled, as unavailable",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const shown = yield* sql<{ readonly statementTimeout: string }>`SHOW statement_timeout`
        expect(shown[0]?.statementTimeout).toBe("300ms")
        const { exit, ms } = yield* elapsed(sql`SELECT pg_sleep(3)`)
        expect(isDatabaseUnavailable(firstError(exit))).toBe(true)
        expect(ms).toBeLessThan(2_500)
      }).pipe(
        Effect.provide(
          postgresTestLayer(Redacted.make(databaseUrl), undefined, {
            maxConnections: 2,
            connectTimeoutMs: 1_000,
            statementTimeoutMs: 300
          })
        )
      ),
    20_000
  )

  it.live(
    "a transaction that cannot get a connection (BEGIN) fails as unavailable",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const transactor = yield* makeTransactor
        // The pool's only connection is busy for a second; the second transaction waits 300 ms for it.
        const busy = yield* Effect.fork(transactor.transaction(Effect.orDie(sql`SELECT pg_sleep(1)`)))
        yield* Effect.sleep("100 millis")
        const failure = yield* Effect.flip(transactor.transaction(Effect.orDie(sql`SELECT 1`)))
        expect(failure).toMatchObject({ operation: "Transactor.transaction", unavailable: true })
        yield* Fiber.join(busy)
      }).pipe(
        Effect.provide(
          postgresTestLayer(Redacted.make(databaseUrl), undefined, {
            maxConnections: 1,
            connectTimeoutMs: 300,
            statementTimeoutMs: 5_000
          })
        )
      ),
    20_000
  )

  it.live(
    "a transaction whose connection dies before COMMIT fails as unavailable",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const transactor = yield* makeTransactor
        const terminate = (pid: number) =>
          Effect.promise(async () => {
            const other = new Pg.Client({ connectionString: databaseUrl })
            await other.connect()
            try {
              await other.query("SELECT pg_terminate_backend($1)", [pid])
            } finally {
              await other.end()
            }
          })
        const failure = yield* Effect.flip(
          transactor.transaction(
            Effect.gen(function* () {
              const [row] = yield* Effect.orDie(sql<{ readonly pid: number }>`SELECT pg_backend_pid() AS pid`)
              if (row !== undefined) yield* terminate(row.pid)
            })
          )
        )
        expect(failure).toMatchObject({ operation: "Transactor.transaction", unavailable: true })
      }).pipe(Effect.provide(postgresTestLayer(Redacted.make(databaseUrl)))),
    20_000
  )
})
