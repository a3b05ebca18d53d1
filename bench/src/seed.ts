/**
 * The data of `pnpm bench`: a PostgreSQL database made for the run, its accounts and keys (through
 * the real use cases) and its transcripts (bulk inserts, so that 100,000 transcripts of 1,000 words
 * take minutes, not hours).
 *
 * Transcripts go in as one `INSERT ... SELECT FROM unnest(...)` of 500 rows per statement (columns
 * as arrays: eleven parameters whatever the row count), on two connections at once (PostgreSQL
 * computes the generated `tsv`, the dearest part, on both cores), with the GIN index built after the
 * load. The text is made here by a seeded generator (the same on every machine, and faster than
 * PostgreSQL's `random()`); a searchable transcript's one segment is built from its text in SQL.
 */
import { AccountAdmin, platformHealthLayer, WebhookAllowList } from "@verbatim/core"
import { persistenceLayer, postgresLayer } from "@verbatim/db"
import { shippedCataloguePath } from "@verbatim/demo-platform"
import { MemoryRateLimiter, MemoryWorkQueue } from "@verbatim/queue"
import { demoPlatform, NodeServicesLive, servicesOn, ThemesFromConfig } from "@verbatim/runtime"
import { offlineMedia } from "@verbatim/runtime/testing"
import { Effect, Layer, Redacted } from "effect"
import pg from "pg"
import { generator, rareWord, words } from "./words.js"

/** A demo catalogue video (English human captions) that every account owns a transcript of, in 1,000 words: POST /transcribe serves it again for 0 credits. */
export const ownedVideo = "q3Lx8VbT2kA"
/** Words per segment of the owned transcript (about the size of a caption line). */
const wordsPerSegment = 12
/** Rows per insert statement. */
const chunk = 500
/** Connections inserting at once. */
const writers = 2

const withDatabase = (url: string, name: string): string => {
  const parsed = new URL(url)
  parsed.pathname = `/${name}`
  return parsed.toString()
}

/** A database made for the run, dropped when the run ends. */
export const benchDatabase = (adminUrl: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const name = `verbatim_bench_${process.pid}_${Date.now().toString(36)}`
      const admin = new pg.Client({ connectionString: adminUrl })
      await admin.connect()
      await admin.query(`CREATE DATABASE ${name}`)
      await admin.end()
      return { name, url: withDatabase(adminUrl, name) }
    }),
    ({ name }) =>
      Effect.promise(async () => {
        const admin = new pg.Client({ connectionString: adminUrl })
        await admin.connect()
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
        await admin.end()
      })
  )

/** Accounts and keys through the real use cases, on the migrated database. */
export const seedAccounts = (
  url: string,
  count: number
): Effect.Effect<ReadonlyArray<{ readonly id: string; readonly key: string }>, unknown> =>
  Effect.gen(function* () {
    const admin = yield* AccountAdmin
    const seeded: Array<{ id: string; key: string }> = []
    for (let i = 0; i < count; i++) {
      const account = yield* admin.createAccount({ name: `bench ${i}`, plan: "business", credits: 1_000_000 })
      const { key } = yield* admin.issueKey(account.id)
      seeded.push({ id: account.id, key })
    }
    return seeded
  }).pipe(
    Effect.provide(
      servicesOn(
        Layer.mergeAll(
          persistenceLayer(postgresLayer(Redacted.make(url))),
          // The platform's outcomes are not watched here (/health is not measured).
          Layer.merge(demoPlatform(shippedCataloguePath), platformHealthLayer()),
          MemoryWorkQueue.layer,
          MemoryRateLimiter.layer,
          NodeServicesLive,
          offlineMedia(),
          Layer.succeed(WebhookAllowList, []),
          ThemesFromConfig
        )
      )
    ),
    Effect.scoped
  )

interface Row {
  readonly accountId: string
  readonly videoId: string
  readonly title: string
  readonly sourceKind: string
  readonly text: string
  /** Its segments (also their JSON text, as the service writes it), or none for one segment of the whole text (built in SQL). */
  readonly segments?: ReadonlyArray<{ text: string; start: number; end: number }>
  readonly createdAt: Date
}

/**
 * One statement for many rows: every column an array parameter. Every transcript has `wordsPer`
 * words, 400 ms a word.
 */
const insertRows = (client: pg.Client, rows: ReadonlyArray<Row>, wordsPer: number) => {
  const segmentsJson = rows.map((row) => (row.segments === undefined ? null : JSON.stringify(row.segments)))
  return client.query(
    `INSERT INTO transcripts (id, account_id, video_id, language, source_kind, status, video_title, channel_id,
      text, segments, segments_json, has_timestamps, word_count, segment_count, duration_seconds, credits_used,
      summary, mind_map, asr_intelligence, created_at, updated_at)
     SELECT r.id, r.account_id, r.video_id, 'en', r.source_kind, 'succeeded', r.title, NULL, r.text,
       coalesce(r.segments, jsonb_build_array(jsonb_build_object('text', r.text, 'start', 0, 'end', $9::int * 400))),
       r.segments_json,
       true, $9::int, coalesce(jsonb_array_length(r.segments), 1), $10::int, 1, NULL, NULL, NULL,
       r.created_at, r.created_at
     FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::jsonb[],
       $8::timestamptz[], $11::text[]) AS r (id, account_id, video_id, title, source_kind, text, segments, created_at,
       segments_json)`,
    [
      rows.map(() => crypto.randomUUID()),
      rows.map((row) => row.accountId),
      rows.map((row) => row.videoId),
      rows.map((row) => row.title),
      rows.map((row) => row.sourceKind),
      rows.map((row) => row.text),
      segmentsJson,
      rows.map((row) => row.createdAt),
      wordsPer,
      Math.ceil((wordsPer * 400) / 1000),
      // Also as text, as the service writes `segments_json` (a jsonb cast to text has its own form).
      segmentsJson
    ]
  )
}

/** Splits a text into caption-sized segments, 400 ms a word. */
const segmentsOf = (text: string) => {
  const all = text.split(" ")
  const segments: Array<{ text: string; start: number; end: number }> = []
  for (let from = 0; from < all.length; from += wordsPerSegment) {
    segments.push({
      text: all.slice(from, from + wordsPerSegment).join(" "),
      start: from * 400,
      end: Math.min(all.length, from + wordsPerSegment) * 400
    })
  }
  return segments
}

/** What the seeding of one run shares: its text generator, the time of its first transcript, the words of each. */
export interface Seeding {
  readonly random: () => number
  /** When the first searchable transcript was made, in ms since 1970; one more every second. */
  readonly epoch: number
  readonly words: number
}

export const seeding = (words: number, transcripts: number): Seeding => ({
  random: generator(42),
  epoch: Date.now() - transcripts * 1000,
  words
})

/**
 * Searchable transcripts `from` to `to` (excluded) of one account, the rare word in 1 of 1,000: the
 * GIN index is dropped for the load and built again after it, then the table is analysed.
 */
export const seedSearchable = (url: string, seeding: Seeding, accountId: string, from: number, to: number) =>
  Effect.promise(async () => {
    const clients = Array.from({ length: writers }, () => new pg.Client({ connectionString: url }))
    await Promise.all(clients.map((client) => client.connect()))
    const [first] = clients as [pg.Client]
    await first.query("DROP INDEX transcripts_tsv_idx")
    // Each connection takes the next chunk as soon as its previous one is in; the text is made in order.
    const busy: Array<Promise<unknown>> = clients.map(() => Promise.resolve())
    for (let start = from, turn = 0; start < to; start += chunk, turn++) {
      const rows: Array<Row> = []
      for (let i = start; i < Math.min(to, start + chunk); i++) {
        const text = `${words(seeding.random, seeding.words)}${i % 1000 === 7 ? ` ${rareWord}` : ""}`
        rows.push({
          accountId,
          videoId: `bench${String(i).padStart(6, "0")}`,
          title: `Benchmark video ${i}: ${words(seeding.random, 5)}`,
          sourceKind: i % 3 === 0 ? "manual" : "auto",
          text,
          createdAt: new Date(seeding.epoch + i * 1000)
        })
      }
      const slot = turn % writers
      await busy[slot]
      busy[slot] = insertRows(clients[slot] ?? first, rows, seeding.words)
    }
    await Promise.all(busy)
    await first.query("SET maintenance_work_mem = '256MB'")
    // As migration 0015 leaves it: new rows go into the index at once, not into a pending list.
    await first.query(
      "CREATE INDEX transcripts_tsv_idx ON transcripts USING GIN (tsv) WITH (fastupdate = off)"
    )
    // Planner statistics (autovacuum does this in production).
    await first.query("VACUUM ANALYZE transcripts")
    await Promise.all(clients.map((client) => client.end()))
  })

/** One owned transcript of `ownedVideo` per account, in caption-sized segments, made now. */
export const seedOwned = (url: string, seeding: Seeding, accounts: ReadonlyArray<{ id: string }>) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    const ownedText = words(seeding.random, seeding.words)
    const owned = accounts.map((account) => ({
      accountId: account.id,
      videoId: ownedVideo,
      title: "The owned benchmark video",
      sourceKind: "manual",
      text: ownedText,
      segments: segmentsOf(ownedText),
      createdAt: new Date()
    }))
    for (let from = 0; from < owned.length; from += chunk) {
      await insertRows(client, owned.slice(from, from + chunk), seeding.words)
    }
    await client.query("ANALYZE transcripts")
    await client.end()
  })
