/**
 * Upgrades and backups, as an operator does them with the real `pnpm start` process
 * (deploy/README.md, "Backups and upgrades"):
 *
 * - a database at the 0.1.0 release's schema, holding an account, its key, its grant and a
 *   transcript, upgrades when this build starts on it: each later migration is logged, and the key,
 *   the balance and the transcript are served as before; a schema newer than the build stops it,
 *   naming both versions, and changes nothing;
 * - PostgreSQL: `pg_dump -Fc` taken while transcribes run, restored with `pg_restore` into a fresh
 *   database, is served by a new server with the same transcripts, each the same, and a balance
 *   that is exactly the grant less one credit per transcript;
 * - the embedded folder, copied while the server is stopped, is served the same from its copy.
 */
import { execFileSync } from "node:child_process"
import { cpSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Migrator, makeTestSchemaName, migrations, postgresLayer, withSearchPath } from "@verbatim/db"
import { Effect, Redacted } from "effect"
import { freePort, printedKey, repositoryRoot, type ServerProcess, startServer } from "./server-process.js"

const databaseUrl = process.env.DATABASE_URL?.trim() ?? ""
const onPath = (name: string) => {
  try {
    execFileSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

/** The migrations of the 0.1.0 release (commit 11f6cdb, "release 0.1.0"): 0001 to 0020. */
const release010 = [
  "0001_accounts",
  "0002_ledger",
  "0003_transcripts",
  "0004_jobs",
  "0005_work",
  "0006_uploads",
  "0007_batches",
  "0008_idempotency",
  "0009_oauth",
  "0010_collections",
  "0011_batch_item_videos",
  "0012_themes",
  "0013_account_changes",
  "0014_transcript_segments_json",
  "0015_search_index_fastupdate",
  "0016_credit_holds",
  "0017_oauth_sign_ins",
  "0018_upload_put_window",
  "0019_safe_balances",
  "0020_oauth_grant_codes"
] as const

const releaseCommit = "11f6cdb"
const hasHistory = (() => {
  try {
    execFileSync("git", ["cat-file", "-e", `${releaseCommit}^{commit}`], {
      cwd: repositoryRoot,
      stdio: "ignore"
    })
    return true
  } catch {
    return false
  }
})()

/** Runs `effect` on PostgreSQL at `url` (one connection). */
const onDatabase = <A>(url: string, effect: Effect.Effect<A, unknown, SqlClient.SqlClient>) =>
  Effect.runPromise(Effect.provide(effect, postgresLayer(Redacted.make(url), { maxConnections: 1 })))

const sql = (url: string, text: string) =>
  onDatabase(
    url,
    Effect.flatMap(SqlClient.SqlClient, (client) => client.unsafe(text))
  )

const started = async (env: Record<string, string>): Promise<{ server: ServerProcess; api: string }> => {
  const port = await freePort()
  const server = startServer({ PORT: String(port), VERBATIM_LOG_FORMAT: "json", ...env })
  await server.waitFor(/Listening on http/, 120_000)
  // The seed's key (an empty database) is printed once listening: wait for it.
  if (env.VERBATIM_SEED === "true" && !/embedded-copy/.test(env.VERBATIM_DATA_DIR ?? "")) {
    await server.waitFor(/Seeded a development account[\s\S]*vbt_/, 120_000)
  }
  return { server, api: `http://127.0.0.1:${port}/api/v2` }
}

const stopped = async (server: ServerProcess) => {
  if (server.child.exitCode === null) server.child.kill("SIGTERM")
  await server.exited
}

const get = async (api: string, key: string, path: string) => {
  const response = await fetch(`${api}${path}`, { headers: { authorization: `Bearer ${key}` } })
  return { status: response.status, json: (await response.json()) as Record<string, unknown> }
}

const transcribe = async (api: string, key: string, video: string) => {
  const response = await fetch(`${api}/transcribe`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ video, mode: "captions_only" })
  })
  return response.status
}

/** What a client reads of its library: the balance and every transcript, each whole. */
const library = async (api: string, key: string) => {
  const credits = await get(api, key, "/credits")
  const list = await get(api, key, "/transcripts?limit=100")
  const items = (list.json.history ?? []) as ReadonlyArray<{ video_id: string }>
  const transcripts: Record<string, unknown> = {}
  for (const item of items)
    transcripts[item.video_id] = (await get(api, key, `/transcripts/${item.video_id}`)).json
  return { credits: credits.json, transcripts }
}

const demoVideos = ["Rt7mN0pWzYe", "q3Lx8VbT2kA", "gT4_hJk9LmQ"] as const

describe.runIf(databaseUrl !== "")("upgrades and backups on PostgreSQL", () => {
  it.runIf(hasHistory)("the 0.1.0 release's migrations are the first twenty of this build, unchanged", () => {
    const released = execFileSync(
      "git",
      ["ls-tree", "--name-only", releaseCommit, "packages/db/src/migrations/"],
      {
        cwd: repositoryRoot,
        encoding: "utf8"
      }
    )
      .split("\n")
      .map((path) => /\/(\d{4}_[a-z0-9_]+)\.ts$/.exec(path)?.[1])
      .filter((key): key is string => key !== undefined)
    expect(released).toEqual([...release010])
    expect(Object.keys(migrations).sort().slice(0, release010.length)).toEqual([...release010])
    // Only comments may differ: every statement of those migrations is the release's.
    const statementsOf = (text: string) => text.replace(/\/\*\*[\s\S]*?\*\//g, "").replace(/\s+/g, " ")
    for (const key of release010) {
      const path = `packages/db/src/migrations/${key}.ts`
      const then = execFileSync("git", ["show", `${releaseCommit}:${path}`], {
        cwd: repositoryRoot,
        encoding: "utf8"
      })
      const now = execFileSync("git", ["show", `HEAD:${path}`], { cwd: repositoryRoot, encoding: "utf8" })
      expect(statementsOf(now), key).toBe(statementsOf(then))
    }
  })

  it("a database at the 0.1.0 schema upgrades at start, logging each migration, and serves its data as before; a newer schema stops the start", async () => {
    const schema = await Effect.runPromise(makeTestSchemaName)
    await sql(databaseUrl, `CREATE SCHEMA ${schema}`)
    const url = Redacted.value(withSearchPath(Redacted.make(databaseUrl), schema))
    try {
      // The release's schema, and what a 0.1.0 server would have stored: an account, its key
      // (`vbt_` and its SHA-256 hex), a grant of 10 credits and one transcript charged 1.
      const released = Object.fromEntries(
        release010.map((key) => [key, migrations[key]])
      ) as Migrator.Migrations
      await onDatabase(url, Migrator.runMigrations(released))
      const key = "vbt_upgrade-test-key-0123456789abcdefghijklmnopq"
      const hash = execFileSync("sh", ["-c", `printf %s '${key}' | sha256sum | cut -c1-64`], {
        encoding: "utf8"
      }).trim()
      const account = "6f1c7a0e-3333-4a4a-8a8a-00000000a010"
      await sql(
        url,
        `INSERT INTO accounts (id, name, plan, credits, default_mode, created_at)
           VALUES ('${account}', 'Release 0.1.0', 'pro', 9, 'captions_only', now());
         INSERT INTO api_keys (id, account_id, hash, prefix, created_at)
           VALUES (gen_random_uuid(), '${account}', '${hash}', 'vbt_upgr', now());
         INSERT INTO ledger_entries (account_id, kind, amount, key, reason, created_at)
           VALUES ('${account}', 'grant', 10, 'grant:upgrade-test', 'test grant', now()),
                  ('${account}', 'charge', -1, 'charge:upgrade-test', 'captions', now());
         INSERT INTO transcripts (id, account_id, video_id, language, source_kind, status, video_title, text,
             segments, has_timestamps, word_count, segment_count, duration_seconds, credits_used, created_at, updated_at)
           VALUES (gen_random_uuid(), '${account}', 'Rt7mN0pWzYe', 'en', 'manual', 'succeeded', 'Kept across upgrades',
             'hello from the release', '[{"start":0,"end":1500,"text":"hello from the release"}]'::jsonb,
             true, 4, 1, 2, 1, now(), now())`
      )

      const { server, api } = await started({ DATABASE_URL: url, VERBATIM_SEED: "false" })
      try {
        const output = server.output()
        const newest = Object.keys(migrations).sort().at(-1) ?? ""
        for (const later of Object.keys(migrations).sort().slice(release010.length)) {
          expect(output).toContain(`migration ${later} applied`)
        }
        expect(output).toContain(
          `database schema at ${newest}: ${Object.keys(migrations).length - release010.length} migrations applied`
        )
        const credits = await get(api, key, "/credits")
        expect(credits.status).toBe(200)
        expect(credits.json).toMatchObject({ credits: 9 })
        const transcript = await get(api, key, "/transcripts/Rt7mN0pWzYe")
        expect(transcript.status, JSON.stringify(transcript.json)).toBe(200)
        expect(JSON.stringify(transcript.json)).toContain("hello from the release")
      } finally {
        await stopped(server)
      }

      // A newer build migrated it since: this build refuses to start, naming both, and writes nothing.
      await sql(
        url,
        "INSERT INTO verbatim_migrations (migration_id, name) VALUES (9999, 'from_a_newer_build')"
      )
      const refused = startServer({
        PORT: String(await freePort()),
        DATABASE_URL: url,
        VERBATIM_SEED: "false"
      })
      expect(await refused.exited, refused.output()).not.toBe(0)
      expect(refused.output()).toContain(
        "the database's schema is at migration 9999_from_a_newer_build, newer than this build knows"
      )
    } finally {
      await sql(databaseUrl, `DROP SCHEMA ${schema} CASCADE`).catch(() => undefined)
    }
  }, 300_000)

  it.runIf(onPath("pg_dump") && onPath("pg_restore"))(
    "pg_dump taken while transcribes run, restored into a fresh database, serves the same transcripts and balance",
    async () => {
      const suffix = `${process.pid}_${Date.now()}`
      const [source, restored] = [`verbatim_backup_src_${suffix}`, `verbatim_backup_dst_${suffix}`]
      const databaseAt = (name: string) => {
        const url = new URL(databaseUrl)
        url.pathname = `/${name}`
        return url.toString()
      }
      await sql(databaseUrl, `CREATE DATABASE ${source}`)
      await sql(databaseUrl, `CREATE DATABASE ${restored}`)
      const dump = join(mkdtempSync(join(tmpdir(), "verbatim-backup-")), "verbatim.dump")
      try {
        const a = await started({ DATABASE_URL: databaseAt(source), VERBATIM_SEED: "true" })
        const key = printedKey(a.server.output()) ?? ""
        expect(key).not.toBe("")
        try {
          expect(await transcribe(a.api, key, demoVideos[0])).toBe(200)
          // The backup is taken while two more transcribes run.
          const traffic = Promise.all([
            transcribe(a.api, key, demoVideos[1]),
            transcribe(a.api, key, demoVideos[2])
          ])
          execFileSync("pg_dump", ["--format=custom", "--no-owner", `--file=${dump}`, databaseAt(source)])
          expect(await traffic).toEqual([200, 200])
          execFileSync("pg_restore", [
            "--no-owner",
            "--exit-on-error",
            `--dbname=${databaseAt(restored)}`,
            dump
          ])
          const before = await library(a.api, key)

          const b = await started({ DATABASE_URL: databaseAt(restored), VERBATIM_SEED: "false" })
          try {
            const after = await library(b.api, key)
            const kept = Object.keys(after.transcripts)
            expect(kept).toContain(demoVideos[0])
            // Each transcript restored is the one the source serves, whole.
            for (const video of kept) expect(after.transcripts[video]).toEqual(before.transcripts[video])
            // The balance is exactly the seed's 1000 less one credit per transcript restored: the
            // ledger and the transcripts were taken at one moment.
            expect(after.credits).toMatchObject({ credits: 1000 - kept.length })
          } finally {
            await stopped(b.server)
          }
        } finally {
          await stopped(a.server)
        }
      } finally {
        for (const name of [source, restored]) {
          await sql(databaseUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined)
        }
      }
    },
    300_000
  )
})

describe("backups of the embedded folder", () => {
  it("a copy of VERBATIM_DATA_DIR taken while the server is stopped is served the same", async () => {
    const data = mkdtempSync(join(tmpdir(), "verbatim-embedded-"))
    const a = await started({ VERBATIM_DATA_DIR: data, VERBATIM_SEED: "true" })
    const key = printedKey(a.server.output()) ?? ""
    expect(key).not.toBe("")
    let before: Awaited<ReturnType<typeof library>>
    try {
      for (const video of demoVideos.slice(0, 2)) expect(await transcribe(a.api, key, video)).toBe(200)
      before = await library(a.api, key)
    } finally {
      await stopped(a.server)
    }
    const copy = join(mkdtempSync(join(tmpdir(), "verbatim-embedded-copy-")), "data")
    cpSync(data, copy, { recursive: true })
    const b = await started({ VERBATIM_DATA_DIR: copy, VERBATIM_SEED: "true" })
    try {
      // Not seeded again: the copy holds the account.
      expect(printedKey(b.server.output())).toBeUndefined()
      expect(await library(b.api, key)).toEqual(before)
      expect(Object.keys(before.transcripts).sort()).toEqual([...demoVideos.slice(0, 2)].sort())
    } finally {
      await stopped(b.server)
    }
  }, 300_000)
})
