/**
 * The `Transcripts` port on SQL. Storing is idempotent per account, video, language and source kind
 * (`ON CONFLICT DO NOTHING`, then the row that won). The list search (GET /transcripts) reads only
 * metadata columns unless segments are asked for, takes the page in a materialized step, and counts
 * separately, only when the page does not tell the total by itself (never `count(*) OVER ()`, which
 * makes PostgreSQL read every matching row). Search words go through `websearch_to_tsquery('english')`
 * over the generated `tsv` (video id, title and text); a search equal to a video id also matches it, and
 * a search shaped like one id is read as a phrase.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type * as Statement from "@effect/sql/Statement"
import {
  type Stored,
  type TranscriptPage,
  TranscriptRecord,
  type TranscriptSearch,
  TranscriptSummary,
  Transcripts
} from "@verbatim/core"
import { Ids, Language } from "@verbatim/domain"
import { Effect, Layer, Option, type ParseResult, Schema } from "effect"
import { makeDirectQuery } from "../direct.js"
import { makePreparedQuery } from "../prepared.js"
import { asFields, Timestamp } from "./columns.js"
import { operation, StoreConflict } from "./failure.js"
import { countOf, totalOf } from "./page.js"
import {
  InsertRow,
  RecordRow,
  recordColumnList,
  SummaryRow,
  SummaryWithSegmentsRow,
  storedSummary,
  summaryColumnList
} from "./transcript-rows.js"

/**
 * The account's succeeded transcripts of a video, narrowed by the filter's fields that are set,
 * newest first (`owned`): the conditions of the `WHERE` clause.
 */
export const ownedConditions = (
  sql: SqlClient.SqlClient,
  accountId: string,
  videoId: string,
  filter: Omit<typeof OwnedRequest.Encoded, "accountId" | "videoId">
): Statement.Fragment =>
  sql.and([
    sql`account_id = ${accountId}`,
    sql`video_id = ${videoId}`,
    sql`status = 'succeeded'`,
    ...(filter.id === undefined ? [] : [sql`id = ${filter.id}`]),
    ...(filter.language === undefined ? [] : [sql`language = ${filter.language}`]),
    ...(filter.sourceKinds === undefined ? [] : [sql`source_kind = ANY(${filter.sourceKinds}::text[])`])
  ])

/** The account's transcripts of a video (`owned`), narrowed by the filter's fields that are set. */
const OwnedRequest = Schema.Struct({
  accountId: Ids.AccountId,
  videoId: Schema.String,
  id: Schema.optional(Ids.TranscriptId),
  language: Schema.optional(Language.LanguageCode),
  sourceKinds: Schema.optional(Schema.Array(TranscriptRecord.fields.sourceKind))
})

/** A list query of GET /transcripts (`search`), its dates as `timestamptz` parameters. */
const SearchRequest = Schema.Struct({
  accountId: Ids.AccountId,
  search: Schema.optional(Schema.String),
  status: TranscriptSummary.fields.status,
  language: Schema.optional(Language.LanguageCode),
  sourceKind: Schema.optional(TranscriptRecord.fields.sourceKind),
  createdFrom: Schema.optional(Timestamp),
  createdTo: Schema.optional(Timestamp),
  offset: Schema.NonNegativeInt,
  limit: Schema.NonNegativeInt
})
type SearchRequest = typeof SearchRequest.Encoded

const encodeSearch = Schema.encode(SearchRequest)
const decodeSummaryRows = Schema.decodeUnknown(Schema.Array(SummaryRow))
/**
 * The summaries of a page's rows, `storedSummary` of each without the schema's steps per row; when
 * a row is not one, the failure of decoding the rows with `SummaryRow`.
 */
const decodeSummaries = (
  rows: ReadonlyArray<unknown>
): Effect.Effect<ReadonlyArray<TranscriptSummary>, ParseResult.ParseError> => {
  const summaries: Array<TranscriptSummary> = new Array(rows.length)
  for (let i = 0; i < rows.length; i++) {
    const summary = storedSummary(rows[i])
    if (summary === undefined) return decodeSummaryRows(rows)
    summaries[i] = summary
  }
  return Effect.succeed(summaries)
}
const decodeSummariesWithSegments = Schema.decodeUnknown(Schema.Array(SummaryWithSegmentsRow))
/** The `total` every row of a search with words carries (the rows' decoding leaves it out). */
const decodeTotal = Schema.decodeUnknown(Schema.Struct({ total: Schema.NonNegativeInt }))

/**
 * How many times the rows up to a page's end the matches of a search must be for its page to be
 * looked for first in the list's newest rows (testing a row's words there costs about 15 times
 * what a match found from the GIN index costs in the sort).
 */
const denseFactor = 32

/**
 * Whether a search is one video id or upload id. Its dashes belong to the id, so it is searched as a
 * phrase: web search syntax would read a leading `-` as "without".
 */
const isIdShaped = Schema.is(Schema.Union(Ids.VideoId, Schema.UUID))

/** How many times `store` retries when the row it conflicted with was deleted before it could read it. */
const storeAttempts = 3

/**
 * The summary columns of a list page (a CTE `page`), each named as its field (`snakeToCamel`, the
 * client's naming): the page's rows skip the client's renaming of every key of every row, which
 * cost about 1 µs a row (50 µs of the server's CPU for a page of 50).
 */
const pageColumns = asFields("page", summaryColumnList)

/** A search's optional filter: its condition on a column, the parameter's value when it is set. */
interface SearchFilter {
  readonly condition: string
  readonly value: unknown
}

/**
 * The optional filters of a search, each with its bit in the statement's shape, in the order of
 * their parameters: after the nine every search has, each set filter takes the next position.
 */
const searchFilters = (query: SearchRequest): ReadonlyArray<SearchFilter> => [
  { condition: "language =", value: query.language },
  { condition: "created_at >=", value: query.createdFrom },
  { condition: "created_at <=", value: query.createdTo },
  { condition: "source_kind =", value: query.sourceKind }
]

/** The search statement: its text (made once per shape, `SearchTexts`) and its parameters. */
interface SearchStatement {
  readonly text: string
  readonly parameters: ReadonlyArray<unknown>
}

/**
 * The texts of the search statement made so far, by shape (which filters are set, whether segments
 * are read): held by the repository, made with its layer.
 */
type SearchTexts = Map<number, string>

/**
 * The search statement of a query: the page of a search and its total in one statement (one
 * snapshot, one round trip), every row carrying the total in `total`. Its text and its parameters
 * come from one list, so a parameter's position is the one its condition names. Parameters: $1
 * account, $2 status, $3 the words as `websearch_to_tsquery` reads them, $4 the words as a video
 * id, $5 the least total for which the page is first looked for in the newest rows (`denseFactor`
 * times $7), $6 how many newest rows (twice $7), $7 the rows up to the page's end, $8 limit, $9
 * offset, then the language, the first and the last date and the source, each when set. The total counts the
 * matches from the GIN index. Then, when the matches are many (at least `denseFactor` times the
 * rows up to the page's end), the page is first looked for in the list's newest rows (twice the
 * rows up to the page's end, in date order from the account's index, each tested against the
 * words): when they hold the page's rows, or every match, these are the page. Otherwise the page is
 * the newest matches from the GIN index, sorted: the only plan before, which sorts every match
 * (97,446 of 100,000 transcripts for a common word: 60-80 ms) where the newest rows hold the page
 * after a hundred. Never prepared: PostgreSQL's generic plan of it (limits unknown) takes the sparse
 * page from the date index too, 1 s for a rare word at 100,000 transcripts against 1 ms planned with
 * the values. Each shape's text is made once (`texts`): building the statement from fragments and
 * compiling it on every request cost about 0.1 ms.
 */
const searchStatement = (
  texts: SearchTexts,
  query: SearchRequest,
  words: string,
  withSegments: boolean
): SearchStatement => {
  const end = query.offset + query.limit
  const parameters: Array<unknown> = [
    query.accountId,
    query.status,
    isIdShaped(words) ? `"${words}"` : words,
    words,
    denseFactor * end,
    2 * end,
    end,
    query.limit,
    query.offset
  ]
  const conditions = ["account_id = $1 AND status = $2"]
  let shape = withSegments ? 1 : 0
  searchFilters(query).forEach((filter, at) => {
    if (filter.value === undefined) return
    parameters.push(filter.value)
    conditions.push(`${filter.condition} $${parameters.length}`)
    shape += 2 << at
  })
  const known = texts.get(shape)
  if (known !== undefined) return { text: known, parameters }
  const text = searchText(conditions.join(" AND "), withSegments)
  texts.set(shape, text)
  return { text, parameters }
}

/** The text of the search statement with its filter (`searchStatement`). */
const searchText = (filter: string, withSegments: boolean): string => {
  const match = "(tsv @@ websearch_to_tsquery('english', $3) OR video_id = $4)"
  const newestFirst = "ORDER BY created_at DESC, id DESC"
  const paged = `${newestFirst} LIMIT $8 OFFSET $9`
  return `WITH total AS MATERIALIZED (SELECT count(*)::int AS n FROM transcripts WHERE ${filter} AND ${match}),
      recent AS MATERIALIZED (
        SELECT ${summaryColumnList}, ${match} AS hit FROM transcripts
        WHERE ${filter} AND (SELECT n FROM total) >= $5
        ${newestFirst} LIMIT $6),
      dense AS MATERIALIZED (SELECT (SELECT count(*) FROM recent WHERE hit) >= least((SELECT n FROM total), $7) AS found),
      page AS MATERIALIZED (
        (SELECT ${summaryColumnList} FROM recent WHERE hit AND (SELECT found FROM dense) ${paged})
        UNION ALL
        (SELECT ${summaryColumnList} FROM transcripts WHERE ${filter} AND ${match} AND NOT (SELECT found FROM dense) ${paged}))
      ${
        withSegments
          ? `SELECT ${pageColumns}, t.segments, (SELECT n FROM total) AS total FROM page JOIN transcripts t ON t.id = page.id
              ORDER BY page.created_at DESC, page.id DESC`
          : `SELECT ${pageColumns}, (SELECT n FROM total) AS total FROM page ORDER BY page.created_at DESC, page.id DESC`
      }`
}

/** Builds the repository over the `SqlClient` in context. */
export const make: Effect.Effect<Transcripts["Type"], never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // The search runs on most list requests: the direct lane (`direct.ts`).
  const direct = yield* makeDirectQuery

  const summaryColumns = summaryColumnList
  const recordColumns = sql.literal(recordColumnList)
  const recordFields = sql.literal(asFields("transcripts", recordColumnList))
  const preparedQuery = yield* makePreparedQuery

  const insert = SqlSchema.findOne({
    Request: InsertRow,
    Result: RecordRow,
    execute: (row) =>
      // `segments_json`: the segments' JSON text as written, which serving puts in its answer (`Jobs.insertServing`).
      sql`INSERT INTO transcripts ${sql.insert({ ...row, segmentsJson: row.segments, updatedAt: row.createdAt })}
        ON CONFLICT (account_id, video_id, language, source_kind) DO NOTHING
        RETURNING ${recordColumns}`
  })

  const existing = SqlSchema.findOne({
    Request: Schema.Struct({
      accountId: Ids.AccountId,
      videoId: Schema.String,
      language: Language.LanguageCode,
      sourceKind: TranscriptRecord.fields.sourceKind
    }),
    Result: RecordRow,
    execute: (key) =>
      sql`SELECT ${recordColumns} FROM transcripts
        WHERE account_id = ${key.accountId} AND video_id = ${key.videoId}
          AND language = ${key.language} AND source_kind = ${key.sourceKind}`
  })

  const getOne = SqlSchema.findOne({
    Request: Schema.Struct({ accountId: Ids.AccountId, id: Ids.TranscriptId }),
    Result: RecordRow,
    execute: ({ accountId, id }) =>
      sql`SELECT ${recordColumns} FROM transcripts WHERE account_id = ${accountId} AND id = ${id}`
  })

  const languagesOf = SqlSchema.findAll({
    Request: Schema.Struct({ accountId: Ids.AccountId, videoId: Schema.String }),
    Result: Schema.Struct({ language: Language.LanguageCode }),
    execute: ({ accountId, videoId }) =>
      sql`SELECT language FROM transcripts
        WHERE account_id = ${accountId} AND video_id = ${videoId} AND status = 'succeeded'
        GROUP BY language ORDER BY language COLLATE "C"`
  })

  const store = (record: TranscriptRecord, attempt: number): Effect.Effect<Stored, unknown> =>
    Effect.gen(function* () {
      const created = yield* insert(record)
      if (Option.isSome(created)) return { record: created.value, created: true }
      const found = yield* existing({
        accountId: record.accountId,
        videoId: record.videoId,
        language: record.language,
        sourceKind: record.sourceKind
      })
      if (Option.isSome(found)) return { record: found.value, created: false }
      // The row that conflicted was deleted in between: try again.
      return yield* attempt < storeAttempts
        ? store(record, attempt + 1)
        : new StoreConflict({ attempts: attempt })
    })

  /** The list filter of GET /transcripts but its words, every condition on columns of `transcripts`. */
  const listFilter = (query: SearchRequest): Statement.Fragment =>
    sql.and([
      sql`account_id = ${query.accountId}`,
      sql`status = ${query.status}`,
      ...(query.language === undefined ? [] : [sql`language = ${query.language}`]),
      ...(query.sourceKind === undefined ? [] : [sql`source_kind = ${query.sourceKind}`]),
      ...(query.createdFrom === undefined ? [] : [sql`created_at >= ${query.createdFrom}`]),
      ...(query.createdTo === undefined ? [] : [sql`created_at <= ${query.createdTo}`])
    ])

  /** Whether a row matches the search words (`words` trimmed, not empty). */
  const matching = (words: string): Statement.Fragment =>
    sql`(tsv @@ websearch_to_tsquery('english', ${isIdShaped(words) ? `"${words}"` : words}) OR video_id = ${words})`

  const columns = sql.literal(summaryColumns)
  const namedPageColumns = sql.literal(pageColumns)
  const newestFirst = sql.literal("ORDER BY created_at DESC, id DESC")

  /** The page of a list without search words: the rows in date order from the index. */
  const pageOf = (query: SearchRequest) =>
    sql`SELECT ${columns} FROM transcripts WHERE ${listFilter(query)}
      ${newestFirst} LIMIT ${query.limit} OFFSET ${query.offset}`

  /**
   * The page of a search and its total, in one statement (`searchStatement`), its rows as the
   * decoders read them: the columns carry their field names (`pageColumns`), so the rows skip the
   * client's name transform.
   */
  const searchTexts: SearchTexts = new Map()
  const searchPage = (query: SearchRequest, words: string, withSegments: boolean) => {
    const { text, parameters } = searchStatement(searchTexts, query, words, withSegments)
    return direct(text, parameters)
  }

  const count = (query: SearchRequest, words: string) =>
    countOf(
      sql`SELECT count(*)::int AS n FROM transcripts WHERE ${words === "" ? listFilter(query) : sql.and([listFilter(query), matching(words)])}`
    )

  const search = (accountId: Ids.AccountId, query: TranscriptSearch) =>
    Effect.gen(function* () {
      const request = yield* encodeSearch({
        accountId,
        search: query.search,
        status: query.status,
        language: query.language,
        sourceKind: query.sourceKind,
        createdFrom: query.createdFrom,
        createdTo: query.createdTo,
        offset: query.offset,
        limit: query.limit
      })
      const words = request.search?.trim() ?? ""
      const rows =
        words === ""
          ? yield* query.includeSegments
              ? sql`WITH page AS MATERIALIZED (${pageOf(request)})
                SELECT ${namedPageColumns}, t.segments FROM page JOIN transcripts t ON t.id = page.id
                ORDER BY page.created_at DESC, page.id DESC`.withoutTransform
              : sql`WITH page AS MATERIALIZED (${pageOf(request)})
                SELECT ${namedPageColumns} FROM page ORDER BY page.created_at DESC, page.id DESC`
                  .withoutTransform
          : yield* searchPage(request, words, query.includeSegments)
      const items: TranscriptPage["items"] = query.includeSegments
        ? yield* decodeSummariesWithSegments(rows)
        : yield* decodeSummaries(rows)
      const total =
        words !== "" && rows[0] !== undefined
          ? (yield* decodeTotal(rows[0])).total
          : yield* totalOf(query.offset, query.limit, items.length, count(request, words))
      return { items, total } satisfies TranscriptPage
    })

  // Prepared (`prepared.ts`): the owned read of POST /transcribe with a webhook, GET /transcripts/{video_id}.
  const ownedOf = SqlSchema.findAll({
    Request: OwnedRequest,
    Result: RecordRow,
    execute: (filter) =>
      preparedQuery(sql`SELECT ${recordFields} FROM transcripts
        WHERE ${ownedConditions(sql, filter.accountId, filter.videoId, filter)}
        ORDER BY created_at DESC, id DESC`)
  })

  const deleted = (statement: Statement.Statement<unknown>) =>
    countOf(sql`WITH deleted AS (${statement}) SELECT count(*)::int AS n FROM deleted`)

  return Transcripts.of({
    store: (record) => store(record, 1).pipe(operation("Transcripts.store")),

    owned: (accountId, videoId, filter) =>
      ownedOf({
        accountId,
        videoId,
        id: filter.id,
        language: filter.language,
        sourceKinds: filter.sourceKinds
      }).pipe(operation("Transcripts.owned")),

    get: (accountId, id) => getOne({ accountId, id }).pipe(operation("Transcripts.get")),

    search: (accountId, query) => search(accountId, query).pipe(operation("Transcripts.search")),

    remove: (accountId, videoId, filter) =>
      deleted(
        sql`DELETE FROM transcripts WHERE ${sql.and([
          sql`account_id = ${accountId}`,
          sql`video_id = ${videoId}`,
          ...(filter.language === undefined ? [] : [sql`language = ${filter.language}`]),
          ...(filter.sourceKind === undefined ? [] : [sql`source_kind = ${filter.sourceKind}`])
        ])} RETURNING id`
      ).pipe(operation("Transcripts.remove")),

    removeByIds: (accountId, ids) =>
      (ids.length === 0
        ? Effect.succeed(0)
        : deleted(
            sql`DELETE FROM transcripts WHERE account_id = ${accountId} AND id = ANY(${ids}::uuid[]) RETURNING id`
          )
      ).pipe(operation("Transcripts.removeByIds")),

    languages: (accountId, videoId) =>
      languagesOf({ accountId, videoId }).pipe(
        Effect.map((rows) => rows.map((row) => row.language)),
        operation("Transcripts.languages")
      )
  })
})

/** `Transcripts` from the `SqlClient` in context. */
export const layer: Layer.Layer<Transcripts, never, SqlClient.SqlClient> = Layer.effect(Transcripts, make)
