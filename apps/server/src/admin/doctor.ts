/**
 * `pnpm admin doctor`: what a server started here would run with, and whether it can. It prints the
 * effective settings (every variable set that Verbatim reads, secrets as `<redacted>`), then checks,
 * each on one line, `ok`, `warn` or `FAIL`:
 *
 * - settings: every `VERBATIM_*` name known and every value accepted (the start's own check);
 * - database: reachable, and its schema against this build's migrations (pending ones are applied at
 *   the next start; a newer schema is a failure); on the embedded folder, not held by a server;
 * - redis (with `REDIS_URL`): answers PING;
 * - storage: the upload folder can be written (a probe file written and removed), or the bucket named;
 * - speech and translation engines: which one a server would use (none is a warning: those requests
 *   answer 503 until one is there);
 * - video platform: the demo catalogue reads, or YouTube answers over HTTPS within 5 s.
 *
 * Exits 1 when any check fails (`--json` prints the same as one object).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { connect } from "node:net"
import { join } from "node:path"
import * as SqlClient from "@effect/sql/SqlClient"
import { SpeechToText } from "@verbatim/core"
import { databaseLayer, migrations } from "@verbatim/db"
import { loadCatalogue } from "@verbatim/demo-platform"
import {
  checkedSettings,
  describeCause,
  knownSettings,
  secretSettings,
  speechFor,
  toolSettings
} from "@verbatim/runtime"
import { Console, Effect, Either, Option, Redacted } from "effect"
import { ServerConfig, type ServerSettings } from "../config.js"
import { holdDataFolder } from "../data-lock.js"
import { DoctorFailed } from "./doctor-spawn.js"

export type Verdict = "ok" | "warn" | "FAIL"

export interface Check {
  readonly name: string
  readonly verdict: Verdict
  readonly detail: string
}

/** The prefixes of every variable Verbatim reads (besides `VERBATIM_*`). */
const otherPrefixes = ["DATABASE_", "REDIS_URL", "ASSEMBLYAI_", "OTEL_", "PORT", "HOST", "NODE_ENV"]

const secrets: ReadonlySet<string> = new Set(secretSettings)

/** The variables set that Verbatim reads, each with its value or `<redacted>` for a secret. */
export const effectiveSettings = (env: Readonly<Record<string, string | undefined>>): ReadonlyArray<string> =>
  Object.entries(env)
    .filter(
      ([name, value]) =>
        value !== undefined &&
        !toolSettings.includes(name) &&
        (knownSettings.includes(name) ||
          secretSettings.some((secret) => name === `${secret}_FILE`) ||
          otherPrefixes.some((prefix) => name === prefix || name.startsWith(prefix)))
    )
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => `${name}=${secrets.has(name) ? "<redacted>" : value}`)

const check = <R>(
  name: string,
  run: Effect.Effect<Check | string, unknown, R>
): Effect.Effect<Check, never, R> =>
  run.pipe(
    Effect.map((result) =>
      typeof result === "string" ? { name, verdict: "ok" as const, detail: result } : result
    ),
    Effect.catchAllCause((cause) =>
      Effect.succeed({
        name,
        verdict: "FAIL" as const,
        detail: Option.getOrElse(describeCause(cause), () => "interrupted")
      })
    )
  )

const newest = (keys: ReadonlyArray<string>): string => [...keys].sort().at(-1) ?? "none"

const databaseCheck = (settings: ServerSettings) =>
  check(
    "database",
    Effect.scoped(
      Effect.gen(function* () {
        const where = Option.match(settings.database.url, {
          onNone: () => `embedded (PGlite) in ${settings.database.dataDir}`,
          onSome: (url) => {
            const parsed = new URL(Redacted.value(url))
            return `PostgreSQL at ${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname}`
          }
        })
        if (Option.isNone(settings.database.url)) yield* holdDataFolder(settings.database.dataDir)
        const sql = yield* SqlClient.SqlClient
        const table = yield* sql<{
          readonly found: boolean
        }>`SELECT to_regclass('verbatim_migrations') IS NOT NULL AS found`
        const applied = table[0]?.found
          ? (yield* sql<{
              readonly id: number
              readonly name: string
            }>`SELECT migration_id AS id, name FROM verbatim_migrations`).map(
              (row) => `${String(row.id).padStart(4, "0")}_${row.name}`
            )
          : []
        const known = Object.keys(migrations)
        const unknown = applied.filter((key) => key > newest(known))
        if (unknown.length > 0) {
          return {
            name: "database",
            verdict: "FAIL" as const,
            detail: `${where}: schema at ${newest(applied)}, newer than this build knows (${newest(known)})`
          }
        }
        const pending = known.filter((key) => !applied.includes(key)).length
        return `${where}: schema at ${newest(applied)}${pending === 0 ? ", up to date" : `; ${pending} migration(s) of this build to apply at the next start`}`
      }).pipe(Effect.provide(databaseLayer(settings.database)))
    )
  )

/** PING over a plain connection (AUTH first when the URL has a password), within 3 s. */
const redisPing = (url: string): Effect.Effect<string, Error> =>
  Effect.async<string, Error>((resume) => {
    const parsed = new URL(url)
    const socket = connect(Number(parsed.port || "6379"), parsed.hostname)
    const done = (result: Either.Either<string, Error>) => {
      socket.destroy()
      resume(Either.isRight(result) ? Effect.succeed(result.right) : Effect.fail(result.left))
    }
    socket.setTimeout(3_000, () => done(Either.left(new Error("no answer within 3 s"))))
    socket.on("error", (error) => done(Either.left(error)))
    let text = ""
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8")
      if (text.includes("+PONG"))
        done(Either.right(`${parsed.hostname}:${parsed.port || "6379"} answers PING`))
      else if (text.includes("-")) done(Either.left(new Error(text.trim())))
    })
    socket.on("connect", () => {
      const password = decodeURIComponent(parsed.password)
      if (password !== "") {
        const user = decodeURIComponent(parsed.username)
        const args = user === "" ? ["AUTH", password] : ["AUTH", user, password]
        socket.write(
          `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join("")}`
        )
      }
      socket.write("*1\r\n$4\r\nPING\r\n")
    })
  })

const storageCheck = (settings: ServerSettings) =>
  check(
    "storage",
    Effect.try(() => {
      if (settings.storage._tag === "s3")
        return "an S3-compatible bucket (VERBATIM_S3_*): not probed by doctor"
      const root = settings.storage.root
      mkdirSync(root, { recursive: true })
      const probe = join(root, `.verbatim-doctor-${process.pid}`)
      writeFileSync(probe, "probe")
      rmSync(probe)
      return `upload folder ${root} can be written`
    })
  )

const speechCheck = (settings: ServerSettings) =>
  check(
    "speech",
    Effect.map(Effect.provide(SpeechToText, speechFor(settings.speech)), (engine) =>
      engine.engine === "none"
        ? {
            name: "speech",
            verdict: "warn" as const,
            detail: "no speech recognition engine: speech requests answer 503 asr_unavailable"
          }
        : `speech recognition on ${engine.engine}`
    )
  )

const platformCheck = (settings: ServerSettings) =>
  check(
    "video platform",
    settings.platform === "demo"
      ? Effect.map(
          loadCatalogue(settings.demoCatalogue),
          () => `demo catalogue ${settings.demoCatalogue} reads`
        )
      : Effect.tryPromise(async () => {
          const response = await fetch("https://www.youtube.com/generate_204", {
            signal: AbortSignal.timeout(5_000)
          })
          return `YouTube answers (HTTP ${response.status})`
        })
  )

/** Runs every check; the lines to print and whether all passed. */
export const doctor = Effect.gen(function* () {
  const read = yield* Effect.either(checkedSettings(ServerConfig))
  const checks: Array<Check> = [
    Either.match(read, {
      onLeft: (refused) => ({ name: "settings", verdict: "FAIL" as const, detail: refused.lines.join("; ") }),
      onRight: ({ warnings }) =>
        warnings.length === 0
          ? { name: "settings", verdict: "ok" as const, detail: "every setting known and accepted" }
          : { name: "settings", verdict: "warn" as const, detail: warnings.join("; ") }
    })
  ]
  if (Either.isRight(read)) {
    const settings = read.right.settings
    checks.push(yield* databaseCheck(settings))
    if (Option.isSome(settings.redis.url)) {
      checks.push(yield* check("redis", redisPing(Redacted.value(settings.redis.url.value))))
    }
    checks.push(yield* storageCheck(settings))
    checks.push(yield* speechCheck(settings))
    checks.push(yield* platformCheck(settings))
  }
  return { settings: effectiveSettings(process.env), checks, ok: checks.every((c) => c.verdict !== "FAIL") }
})

/** Prints the report (readable, or one JSON object) and fails the command when a check failed. */
export const runDoctor = (json: boolean) =>
  Effect.gen(function* () {
    const report = yield* doctor
    if (json) yield* Console.log(JSON.stringify(report))
    else {
      yield* Console.log("Effective settings (secrets redacted):")
      for (const line of report.settings) yield* Console.log(`  ${line}`)
      if (report.settings.length === 0) yield* Console.log("  (none set: every default)")
      yield* Console.log("Checks:")
      for (const c of report.checks) yield* Console.log(`  ${c.verdict.padEnd(4)}  ${c.name}: ${c.detail}`)
    }
    if (!report.ok) return yield* Effect.fail(new DoctorFailed())
  })
