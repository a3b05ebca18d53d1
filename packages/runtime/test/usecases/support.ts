/**
 * Shared pieces of the use-case suites: the production use cases on the test infrastructure
 * (`servicesOn(testInfrastructure())`: a fresh database, the shipped demo catalogue, the in-memory
 * queue and rate limiter, node's secrets), one layer per suite; accounts made through `AccountAdmin`;
 * requests decoded with the contract's schemas (so their defaults apply as on the wire); the demo
 * videos by role; and checks of failures, jobs and the books.
 */
import { readFileSync } from "node:fs"
import { expect } from "@effect/vitest"
import {
  type Account,
  AccountAdmin,
  type ApiKey,
  type JobRecord,
  Jobs,
  Ledger,
  type NewAccountInput,
  type TranscriptRecord,
  Transcripts
} from "@verbatim/core"
import { type CatalogueVideo, parseCatalogue, shippedCataloguePath } from "@verbatim/demo-platform"
import { Api, Errors, type Ids, Transcript } from "@verbatim/domain"
import { Cause, DateTime, Effect, Either, Exit, Option, Schema } from "effect"
import { servicesOn } from "../../src/index.js"
import { testInfrastructure } from "../../src/testing.js"

/** The use cases and the ports of the production wiring, on a fresh test infrastructure. */
export const useCasesLayer = () => servicesOn(testInfrastructure())

/**
 * The options of a suite's `layer(...)`: one fresh wiring per suite, on the test clock (one per
 * suite, starting at the epoch): the use cases take their time from Effect's `Clock`, so a test
 * moves the clock (`TestClock.adjust`) instead of sleeping.
 */
export const suiteOptions = { timeout: "60 seconds" } as const

/**
 * The options of a suite that needs the live clock (each says why at its `layer(...)`): mostly the
 * embedded worker running in the background, whose reconcile and lease loops sleep on the clock
 * between queries that wait on the database, so no test could tell when to move a test clock.
 */
export const liveSuiteOptions = { timeout: "60 seconds", excludeTestServices: true } as const

/** The demo videos of the shipped catalogue, by what each one is good for. */
export const videos = {
  /** English manual and auto tracks, original en, 92 s. */
  manualAndAuto: "q3Lx8VbT2kA",
  /** Manual tracks in en, de, fr and es, plus an English auto track, 61 s. */
  multiLanguage: "Rt7mN0pWzYe",
  /** One English auto track only, 111 s. */
  autoOnly: "gT4_hJk9LmQ",
  /** German manual and auto tracks only, original language de, 101 s. */
  germanOnly: "Xb2-vCw5NsD",
  /** No captions at all, 12 minutes. */
  noCaptions: "Pz8QeL1uWfH",
  /** No captions, 540 minutes: longer than ASR takes. */
  veryLong: "Hs3KdN7rTyU",
  /** In the catalogue, but private. */
  unavailable: "Jm6VcX0bQpZ",
  /** pt-BR manual and pt auto tracks, original pt, 58 s. */
  portuguese: "Wn1FgT8sLkE",
  /** One English manual track only, 129 s. */
  manualOnly: "Ky5RdP2hMvC",
  /** Well-formed, but in no catalogue. */
  unknown: "AAAAAAAAAAA"
} as const

/** Every distinct transcript the catalogue serves through the captions path with its default choice. */
export const servable: ReadonlyArray<{
  readonly video: string
  readonly language: string
  readonly source: "manual" | "auto"
}> = [
  { video: videos.manualAndAuto, language: "en", source: "manual" },
  { video: videos.multiLanguage, language: "en", source: "manual" },
  { video: videos.multiLanguage, language: "de", source: "manual" },
  { video: videos.multiLanguage, language: "fr", source: "manual" },
  { video: videos.multiLanguage, language: "es", source: "manual" },
  { video: videos.autoOnly, language: "en", source: "auto" },
  { video: videos.germanOnly, language: "de", source: "manual" },
  { video: videos.portuguese, language: "pt-BR", source: "manual" },
  { video: videos.manualOnly, language: "en", source: "manual" }
]

const catalogue = parseCatalogue(readFileSync(shippedCataloguePath, "utf8"), shippedCataloguePath)

/** A video of the shipped catalogue (the test fails when it is not there). */
export const catalogueVideo = (id: string): CatalogueVideo => {
  const found = Either.getOrUndefined(catalogue)?.videos.find((video) => video.id === id)
  expect(found, `video ${id} in the shipped catalogue`).toBeDefined()
  return found as CatalogueVideo
}

/** The text of a caption track of the shipped catalogue, as a transcript joins it. */
export const trackSegments = (id: string, language: string, kind: "manual" | "auto") => {
  const track = catalogueVideo(id).captionTracks.find((t) => t.language === language && t.kind === kind)
  expect(track, `${kind} ${language} track of ${id}`).toBeDefined()
  return track?.segments ?? []
}

/** Created before 2026-10-01: the account default is captions_only. */
export const oldAccount = DateTime.unsafeMake("2025-06-01T00:00:00Z")
/** Created from 2026-10-01: the account default is auto (ASR needs confirmation). */
export const newAccount = DateTime.unsafeMake("2026-10-02T00:00:00Z")

/** A uuid no row has. */
export const unknownUuid = "00000000-0000-4000-8000-000000000000"

let accounts = 0

/** A new account (defaults: business plan, 10 credits, created before the auto default). */
export const createAccount = (input: Partial<NewAccountInput> = {}) =>
  Effect.flatMap(AccountAdmin, (admin) =>
    admin.createAccount({
      name: input.name ?? `use-case account ${++accounts}`,
      plan: input.plan ?? "business",
      credits: input.credits ?? 10,
      createdAt: input.createdAt ?? oldAccount,
      defaultMode: input.defaultMode
    })
  ).pipe(Effect.orDie)

/** An account and an active key of it. */
export const accountWithKey = (input: Partial<NewAccountInput> = {}) =>
  Effect.gen(function* () {
    const account = yield* createAccount(input)
    const issued = yield* Effect.orDie(Effect.flatMap(AccountAdmin, (admin) => admin.issueKey(account.id)))
    return { account, key: issued.key, record: issued.record satisfies ApiKey }
  })

/** A POST /transcribe body as the API decodes it (defaults applied); a body the schema refuses is a test bug. */
export const transcribeRequest = (body: Record<string, unknown>) =>
  Schema.decodeUnknownSync(Api.TranscribeRequest)(body)

export const estimateRequest = (body: Record<string, unknown>) =>
  Schema.decodeUnknownSync(Api.EstimateRequest)(body)

/** A query as the API decodes it from the query string. */
export const query = <A, I>(schema: Schema.Schema<A, I>, fields: Record<string, string> = {}) =>
  Schema.decodeUnknownSync(schema)(fields)

/**
 * The failure of an effect that must fail with an `ApiError` of `code`: a success, a store failure
 * (`PersistenceError`, answered as 500) or a defect fails the test.
 */
export const expectApiError = <A, E, R>(effect: Effect.Effect<A, E, R>, code: Errors.ErrorCode) =>
  Effect.gen(function* () {
    const exit = yield* Effect.exit(effect)
    if (Exit.isSuccess(exit)) {
      return yield* Effect.dieMessage(`expected ${code}, got a success: ${JSON.stringify(exit.value)}`)
    }
    const failure = Cause.failureOption(exit.cause)
    if (Option.isNone(failure))
      return yield* Effect.dieMessage(`expected ${code}, got ${Cause.pretty(exit.cause)}`)
    const error = failure.value
    expect(error, String(error)).toBeInstanceOf(Errors.ApiError)
    const apiError = error as Errors.ApiError
    expect({ code: apiError.code, message: apiError.message }).toEqual({ code, message: apiError.message })
    return apiError
  })

/** The job an error names in `details.job_id` (the test fails when it names none or an unknown one). */
export const jobNamedBy = (account: Account, error: Errors.ApiError) =>
  Effect.gen(function* () {
    const id = error.details.job_id
    expect(typeof id, `details.job_id of ${error.message}`).toBe("string")
    const found = yield* Jobs.pipe(Effect.flatMap((jobs) => jobs.get(account.id, id as Ids.JobId)))
    expect(Option.isSome(found), `job ${String(id)} recorded`).toBe(true)
    return Option.getOrThrow(found)
  })

/** The account's stored job with this id (the test fails when there is none). */
export const storedJob = (account: Account, id: string | null) =>
  Effect.gen(function* () {
    expect(id).not.toBeNull()
    const found = yield* Jobs.pipe(Effect.flatMap((jobs) => jobs.get(account.id, id as Ids.JobId)))
    expect(Option.isSome(found), `job ${String(id)} recorded`).toBe(true)
    return Option.getOrThrow(found)
  })

/** Every job of the account, newest first. */
export const jobsOf = (account: Account) =>
  Effect.flatMap(Jobs, (jobs) => jobs.list(account.id, { offset: 0, limit: 10_000 })).pipe(
    Effect.map((page) => page.items)
  )

/** The account's transcripts of a video, newest first. */
export const ownedOf = (account: Account, videoId: string) =>
  Effect.flatMap(Transcripts, (transcripts) => transcripts.owned(account.id, videoId, {}))

/** The account's books: the balance, the sum of its ledger entries, and the entries. */
export const books = (account: Account) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    // The ledger balance (what open holds reserve is part of it; `available` is what is left).
    const { balance, held, available } = yield* ledger.funds(account.id)
    const entries = yield* ledger.entries(account.id)
    const charges = entries.filter((entry) => entry.kind === "charge")
    return {
      balance,
      held,
      available,
      sum: entries.reduce((sum, entry) => sum + entry.amount, 0),
      entries,
      charges
    }
  })

/** The balance equals the sum of the ledger and is never negative; the books, for more checks. */
export const expectBalancedBooks = (account: Account) =>
  Effect.gen(function* () {
    const found = yield* books(account)
    expect(found.balance).toBe(found.sum)
    expect(found.balance).toBeGreaterThanOrEqual(0)
    expect(found.available).toBe(found.balance - found.held)
    expect(found.available).toBeGreaterThanOrEqual(0)
    return found
  })

/** A job record with every field a test does not care about filled in. */
export const jobRecord = (
  account: Account,
  fields: Partial<JobRecord> & Pick<JobRecord, "id" | "status">
): JobRecord => {
  const now = DateTime.unsafeMake(Date.now())
  return {
    requestId: fields.id as string as Ids.RequestId,
    accountId: account.id,
    kind: "transcribe",
    videoId: videos.manualAndAuto,
    videoTitle: null,
    language: null,
    source: null,
    mode: "captions_only",
    error: null,
    creditsUsed: 0,
    transcriptId: null,
    payload: null,
    webhookUrl: null,
    attempts: 0,
    leaseOwner: null,
    leaseExpiresAt: null,
    nextRunAt: null,
    createdAt: now,
    startedAt: null,
    completedAt: null,
    ...fields
  }
}

/**
 * A transcript record ready to store: by default the English manual track of `videos.manualAndAuto`;
 * other fields as given (an ASR transcript, or a language the catalogue has no track for, reuses the
 * English manual text unless `segments` are given).
 */
export const transcriptRecord = (
  account: Account,
  fields: Omit<Partial<TranscriptRecord>, "language"> & { readonly language?: string } = {}
): TranscriptRecord => {
  const videoId = fields.videoId ?? videos.manualAndAuto
  const language = fields.language ?? "en"
  const sourceKind = fields.sourceKind ?? "manual"
  const video = Either.getOrUndefined(catalogue)?.videos.find((v) => v.id === videoId)
  const track = video?.captionTracks.find((t) => t.language === language && t.kind === sourceKind)
  const segments = fields.segments ?? track?.segments ?? trackSegments(videos.manualAndAuto, "en", "manual")
  const text = fields.text ?? Transcript.textOf(segments)
  return {
    id: uuid<Ids.TranscriptId>(),
    accountId: account.id,
    videoId,
    videoTitle: video?.title ?? null,
    channelId: null,
    sourceKind,
    status: "succeeded",
    text,
    segments,
    hasTimestamps: true,
    wordCount: text.split(" ").length,
    segmentCount: segments.length,
    durationSeconds: video?.durationSeconds ?? 60,
    creditsUsed: 1,
    summary: null,
    mindMap: null,
    asrIntelligence: null,
    createdAt: DateTime.unsafeMake(Date.now()),
    ...fields,
    language: language as TranscriptRecord["language"]
  }
}

/** A fresh uuid, typed as the id it stands for. */
export const uuid = <A extends string>(): A => crypto.randomUUID() as A
