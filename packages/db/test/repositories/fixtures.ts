/**
 * Builders for the repository suites: fresh accounts (every test works on its own accounts, so the
 * tests of a suite share one database without seeing each other), transcripts and jobs.
 */
import { randomUUID } from "node:crypto"
import {
  Accounts,
  type AccountWithBalance,
  type JobRecord,
  Jobs,
  jobDefaults,
  Ledger,
  Transactor,
  type TranscriptRecord,
  Transcripts,
  Uploads,
  WebhookDeliveries
} from "@verbatim/core"
import { Api, Ids, Language, Transcript } from "@verbatim/domain"
import { DateTime, Effect } from "effect"

/** The store ports, from `RepositoriesLive`. */
export const repositories = Effect.all({
  accounts: Accounts,
  ledger: Ledger,
  jobs: Jobs,
  transcripts: Transcripts,
  transactor: Transactor,
  deliveries: WebhookDeliveries,
  uploads: Uploads
})

export const at = (iso: string): DateTime.Utc => DateTime.unsafeMake(iso)

export const accountId = (): Ids.AccountId => Ids.AccountId.make(randomUUID())
export const transcriptId = (): Ids.TranscriptId => Ids.TranscriptId.make(randomUUID())
export const jobId = (): Ids.JobId => Ids.JobId.make(randomUUID())
export const language = (code: string): Language.LanguageCode => Language.LanguageCode.make(code)

/** A new account on the free plan with a zero balance. */
export const newAccount = (name = "Ada"): Effect.Effect<AccountWithBalance, unknown, Accounts> =>
  Effect.flatMap(Accounts, (accounts) =>
    accounts.create({
      id: accountId(),
      name,
      plan: "free",
      defaultMode: "auto",
      createdAt: at("2026-10-02T10:00:00.000Z")
    })
  )

/** A new account holding `credits`. */
export const fundedAccount = (
  credits: number
): Effect.Effect<AccountWithBalance, unknown, Accounts | Ledger> =>
  Effect.gen(function* () {
    const account = yield* newAccount()
    const ledger = yield* Ledger
    yield* ledger.grant(
      { accountId: account.id, key: `grant:${randomUUID()}`, reason: "test", at: at("2026-10-02T10:00:00Z") },
      credits
    )
    return account
  })

const words = (text: string) => text.split(/\s+/).filter((word) => word !== "").length

/** A succeeded English caption transcript of `text`, in two timed segments. */
export const transcript = (
  owner: Ids.AccountId,
  overrides: Partial<TranscriptRecord> = {}
): TranscriptRecord => {
  const text = overrides.text ?? "Hello and welcome to the show about gardening"
  const segments = [
    new Transcript.Segment({
      text,
      start: 0,
      end: 4_000,
      words: [new Transcript.Word({ text: text.split(" ")[0] ?? "", start: 0, end: 500 })]
    }),
    new Transcript.Segment({ text: "Goodbye", start: 4_000, end: 5_500 })
  ]
  return {
    id: transcriptId(),
    accountId: owner,
    videoId: "dQw4w9WgXcQ",
    videoTitle: "Gardening for beginners",
    language: language("en"),
    sourceKind: "manual",
    status: "succeeded",
    wordCount: words(text) + 1,
    segmentCount: segments.length,
    durationSeconds: 6,
    creditsUsed: 1,
    createdAt: at("2026-10-03T12:00:00.000Z"),
    channelId: "UCuAXFkgsw1L7xaCfnd5JJOw",
    text: `${text} Goodbye`,
    segments,
    hasTimestamps: true,
    summary: null,
    mindMap: null,
    asrIntelligence: null,
    ...overrides
  }
}

/** Every optional field of a transcript filled in. */
export const richTranscript = (owner: Ids.AccountId): TranscriptRecord =>
  transcript(owner, {
    sourceKind: "asr",
    summary: { tldr: "plants", nested: [1, { video_id: "x" }], empty: null },
    mindMap: { root: { children: ["a", "b"] } },
    asrIntelligence: new Api.AsrIntelligence({
      summary: "About plants",
      chapters: [new Api.Chapter({ summary: "s", headline: "h", gist: "g", start: 0, end: 1000 })],
      entities: null
    })
  })

/** A completed caption job. */
export const job = (owner: Ids.AccountId, overrides: Partial<JobRecord> = {}): JobRecord => ({
  ...jobDefaults,
  kind: "transcribe",
  id: jobId(),
  accountId: owner,
  requestId: Ids.RequestId.make(randomUUID()),
  videoId: "dQw4w9WgXcQ",
  videoTitle: "Gardening for beginners",
  language: language("en"),
  source: "manual",
  mode: "captions_only",
  status: "completed",
  error: null,
  creditsUsed: 1,
  transcriptId: null,
  createdAt: at("2026-10-03T12:00:00.000Z"),
  startedAt: at("2026-10-03T12:00:00.100Z"),
  completedAt: at("2026-10-03T12:00:01.000Z"),
  ...overrides
})
