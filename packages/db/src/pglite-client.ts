/**
 * An `@effect/sql` client over an in-process PGlite database (PostgreSQL compiled to WebAssembly).
 *
 * Statements compile with PostgreSQL's dialect (`pg-compiler.ts`), so SQL reads exactly as on PostgreSQL. PGlite is a
 * single session: a one-permit semaphore serialises access, and a transaction (or `sql.reserve`)
 * holds the permit from BEGIN to COMMIT/ROLLBACK while other fibers wait. Values are parsed like
 * node-postgres does (`bigint` as a string), so both clients return the same rows.
 */

import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { mkdir } from "node:fs/promises"
import { createRequire } from "node:module"
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import { PGlite, type PGliteOptions, type Results, types } from "@electric-sql/pglite"
import { Context, Effect, Layer, Option, type Scope, Stream } from "effect"

export * from "./pglite.js"

import { makePgCompiler, PgJson } from "./pg-compiler.js"
import { PgliteClient, type PgliteClientConfig, TypeId } from "./pglite.js"

type TransformRows = (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined

/**
 * Parsers that differ from node-postgres's defaults: PGlite returns `bigint` as a number (or a
 * `BigInt` past 2^53) and `date` as UTC midnight; node-postgres returns a string and local midnight.
 */
const pgCompatibleParsers: NonNullable<PGliteOptions["parsers"]> = {
  [types.INT8]: (value) => value,
  [types.DATE]: (value) => {
    const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value)
    if (match === null) return new Date(value)
    const date = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]))
    date.setFullYear(Number(match[1]))
    return date
  }
}

/**
 * PostgreSQL's `shared_buffers` for every PGlite database. PGlite keeps PostgreSQL's 128MB, and
 * touches all of it when it starts (the server held 130 MB more at rest for it); pages past the
 * buffers are read from the data folder's files, which the OS caches.
 */
const startParams = [...PGlite.defaultStartParams, "-c", "shared_buffers=32MB"]

/** Creates a PGlite database in the folder named by its argument, in a process of its own. */
const initdbScript = [
  "const { PGlite } = await import(process.argv[1])",
  "const db = await PGlite.create({ dataDir: process.argv[2] })",
  "await db.close()"
].join("\n")

/**
 * A data folder without a database gets one from PGlite's initdb run in a short-lived child
 * process: initdb runs in a second PostgreSQL instance of its own, and the process that ran it held
 * about 900 MB for long after (WebAssembly memories are freed only by a full GC, and the allocator
 * keeps the pages). The folder is then opened as on any later start.
 */
const initialise = (dataDir: string): Effect.Effect<void, SqlError> =>
  Effect.async<void, SqlError>((resume) => {
    const fail = (reason: string) =>
      resume(
        Effect.fail(
          new SqlError({ message: `PgliteClient: failed to create the database in ${dataDir}: ${reason}` })
        )
      )
    const pglite = pathToFileURL(createRequire(import.meta.url).resolve("@electric-sql/pglite")).href
    // Liftoff only: the code runs once, and optimising it cost more than it saved (initdb took
    // 3.4 s of CPU instead of 1.9 s).
    const child = spawn(
      process.execPath,
      ["--liftoff-only", "--input-type=module", "-e", initdbScript, pglite, dataDir],
      {
        stdio: ["ignore", "ignore", "pipe"]
      }
    )
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
    })
    child.once("error", (error) => fail(error.message))
    child.once("exit", (code, signal) =>
      code === 0 ? resume(Effect.void) : fail(stderr.trim().split("\n").at(-1) ?? `exit ${code ?? signal}`)
    )
    return Effect.sync(() => {
      child.kill()
    })
  })

const errorMessage = (cause: unknown): string =>
  cause instanceof Error ? cause.message : typeof cause === "string" ? cause : "unknown error"

const statementError = (cause: unknown) =>
  new SqlError({ cause, message: `Failed to execute statement: ${errorMessage(cause)}` })

/** Rows of one result, or one array of rows per statement when a text held several (as `pg` does). */
const rowsOf = (results: ReadonlyArray<Results>, transformRows: TransformRows): ReadonlyArray<unknown> => {
  const transform = (rows: ReadonlyArray<object>) => (transformRows ? transformRows(rows) : rows)
  if (results.length === 1) {
    const [only] = results
    return only === undefined ? [] : transform(only.rows)
  }
  return results.map((result) => transform(result.rows))
}

/** How long statements may follow each other without giving the event loop a turn. */
const turnEveryMs = 10

let lastTurn = performance.now()

/**
 * A statement's outcome, handed on at once, or after the event loop's next turn when none was given
 * for `turnEveryMs`. PGlite runs in this thread and answers through promises alone, so statements
 * that follow each other (a batch of 3,000 items taken by the embedded worker) would otherwise run
 * as one unbroken chain of microtasks: no socket read, no timer, for tens of seconds (the server's
 * `/ping` unanswered meanwhile). `setImmediate` runs after the loop's poll phase, so I/O goes first.
 * The statement's promise is handled at once, its failure too: none is left unhandled meanwhile.
 */
const afterTurn = <A>(outcome: Promise<A>): Promise<A> =>
  new Promise((resolve, reject) => {
    const settle = (finish: () => void) => {
      if (performance.now() - lastTurn < turnEveryMs) return finish()
      setImmediate(() => {
        lastTurn = performance.now()
        finish()
      })
    }
    outcome.then(
      (value) => settle(() => resolve(value)),
      (error: unknown) => settle(() => reject(error))
    )
  })

/**
 * Opens a PGlite database and builds a `PgliteClient` over it; the database closes with the scope.
 */
export const make = (
  config: PgliteClientConfig
): Effect.Effect<PgliteClient, SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function* () {
    const dataDir = config.dataDir === undefined ? undefined : resolve(config.dataDir)
    const lock = yield* Effect.makeSemaphore(1)
    const locked = lock.withPermits(1)
    const openFailed = (cause: unknown) =>
      new SqlError({ cause, message: `PgliteClient: failed to open the database: ${errorMessage(cause)}` })
    if (dataDir !== undefined) {
      yield* Effect.tryPromise({
        try: () => mkdir(dataDir, { recursive: true }),
        catch: openFailed
      })
      if (config.loadDataDir === undefined && !existsSync(join(dataDir, "PG_VERSION")))
        yield* initialise(dataDir)
    }
    const db = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () =>
          PGlite.create({
            parsers: pgCompatibleParsers,
            startParams,
            ...(dataDir === undefined ? {} : { dataDir }),
            ...(config.loadDataDir === undefined ? {} : { loadDataDir: config.loadDataDir })
          }),
        catch: openFailed
      }),
      (db) =>
        Effect.gen(function* () {
          // Wait (bounded) for the running statement or transaction, then close; later statements fail.
          const taken = yield* lock.take(1).pipe(Effect.interruptible, Effect.timeoutOption("5 seconds"))
          yield* Effect.tryPromise(() => db.close()).pipe(
            Effect.catchAll((error) => Effect.logWarning("PgliteClient: failed to close the database", error))
          )
          if (Option.isSome(taken)) yield* lock.release(1)
        })
    )

    const query = (sql: string, params: ReadonlyArray<unknown>, rowMode?: "array") =>
      Effect.tryPromise({
        // Without parameters the text goes through the simple protocol, so it may hold several
        // statements, as with node-postgres.
        try: (): Promise<ReadonlyArray<Results>> =>
          afterTurn(
            params.length === 0 && rowMode === undefined
              ? db.exec(sql)
              : db
                  .query<Record<string, unknown>>(sql, [...params], rowMode === undefined ? {} : { rowMode })
                  .then((r): ReadonlyArray<Results> => [r])
          ),
        catch: statementError
      })

    const makeConnection = (guard: <A>(effect: Effect.Effect<A, SqlError>) => Effect.Effect<A, SqlError>) => {
      const execute = (sql: string, params: ReadonlyArray<unknown>, transformRows: TransformRows) =>
        guard(Effect.map(query(sql, params), (results) => rowsOf(results, transformRows)))
      const connection: Connection = {
        execute,
        executeUnprepared: execute,
        executeRaw: (sql, params) =>
          guard(Effect.map(query(sql, params), (results) => (results.length === 1 ? results[0] : results))),
        executeValues: (sql, params) =>
          guard(
            Effect.map(query(sql, params, "array"), (results) =>
              results.flatMap((result) => result.rows as unknown as ReadonlyArray<ReadonlyArray<unknown>>)
            )
          ),
        // PGlite has no cursors over its API: the rows are read at once (they live in this process anyway).
        executeStream: (sql, params, transformRows) =>
          Stream.fromIterableEffect(
            guard(
              Effect.map(query(sql, params), (results) =>
                results.flatMap((result) => (transformRows ? transformRows(result.rows) : result.rows))
              )
            )
          )
      }
      return connection
    }

    const shared = makeConnection(locked)
    const held = makeConnection((effect) => effect)

    /** Takes the permit for the scope; a transaction left open is rolled back before release. */
    const reserve: Effect.Effect<Connection, SqlError, Scope.Scope> = Effect.uninterruptibleMask((restore) =>
      Effect.zipRight(
        restore(lock.take(1)),
        Effect.as(
          Effect.addFinalizer(() =>
            Effect.suspend(() =>
              db.closed || !db.isInTransaction()
                ? Effect.void
                : Effect.ignore(Effect.tryPromise(() => db.query("ROLLBACK")))
            ).pipe(Effect.ensuring(lock.release(1)))
          ),
          held
        )
      )
    )

    const transformRows = config.transformResultNames
      ? Statement.defaultTransforms(config.transformResultNames, config.transformJson).array
      : undefined

    const client = yield* SqlClient.make({
      acquirer: Effect.succeed(shared),
      transactionAcquirer: reserve,
      compiler: makePgCompiler(config.transformQueryNames, config.transformJson),
      spanAttributes: [
        ...(config.spanAttributes ? Object.entries(config.spanAttributes) : []),
        ["db.system.name", "postgresql"],
        ["db.namespace", "pglite"],
        ["server.address", dataDir ?? "memory"]
      ],
      transformRows
    })

    const onNotify = (channel: string, f: (payload: string) => void) =>
      Effect.asVoid(
        Effect.acquireRelease(
          locked(
            Effect.tryPromise({
              try: () => db.listen(channel, f),
              catch: (cause) => new SqlError({ cause, message: `Failed to listen: ${errorMessage(cause)}` })
            })
          ),
          (unlisten) => Effect.ignore(locked(Effect.tryPromise(() => unlisten())))
        )
      )

    const listen = (channel: string): Stream.Stream<string, SqlError> =>
      Stream.asyncPush<string, SqlError>((emit) => onNotify(channel, (payload) => emit.single(payload)))

    const notify = (channel: string, payload: string) =>
      Effect.asVoid(shared.execute("SELECT pg_notify($1, $2)", [channel, payload], undefined))

    return Object.assign(client, {
      [TypeId]: TypeId,
      config,
      json: (value: unknown) => PgJson(value),
      listen,
      onNotify,
      notify
    } as const)
  })

/** A `PgliteClient`, also provided as the `SqlClient`. */
export const layer = (
  config: PgliteClientConfig = {}
): Layer.Layer<PgliteClient | SqlClient.SqlClient, SqlError> =>
  Layer.scopedContext(
    Effect.map(make(config), (client) =>
      Context.make(PgliteClient, client).pipe(Context.add(SqlClient.SqlClient, client))
    )
  ).pipe(Layer.provide(Reactivity.layer))
