/**
 * The Transcribe use case on the captions path, called directly on the production wiring: what is
 * charged (1 credit for captions stored, 0 for an owned transcript), what is stored and recorded
 * (a job for every request that passes validation, naming its transcript), the caption choice with
 * its language fallback (DESIGN decision 9), the refusals (each recorded as a failed job that the
 * error names in `details.job_id`), the ASR quote for an implicit default (decision 1), the too-long
 * video (decision 2), and the estimate, which charges and records nothing.
 */
import { describe, expect, layer } from "@effect/vitest"
import {
  type Account,
  answerValues,
  completedValues,
  Jobs,
  makeTranscribe,
  PreEncodedCompleted,
  Transcribe
} from "@verbatim/core"
import { Api, Asr, type Errors, Pricing, Transcript } from "@verbatim/domain"
import { Clock, DateTime, Effect, Either, Option, Schema } from "effect"
import {
  createAccount,
  estimateRequest,
  expectApiError,
  expectBalancedBooks,
  jobNamedBy,
  jobsOf,
  newAccount,
  ownedOf,
  storedJob,
  suiteOptions,
  trackSegments,
  transcribeRequest,
  useCasesLayer,
  videos
} from "./support.js"

/** Transcribes, and insists on a `completed` answer. */
const completed = (account: Account, body: Record<string, unknown>) =>
  Effect.gen(function* () {
    const answer = yield* (yield* Transcribe).transcribe(account, transcribeRequest(body))
    expect(answer, JSON.stringify(answer)).toBeInstanceOf(Api.TranscribeCompleted)
    return answer as Api.TranscribeCompleted
  })

/**
 * A clock a second further on at every reading: the request's arrival and the moment its outcome is
 * known are distinct readings, so a job whose timestamps are all one reading is told apart without
 * any real wait.
 */
const steppingClock = (): Clock.Clock => {
  const live = Clock.make()
  let readings = 0
  const millis = () => live.unsafeCurrentTimeMillis() + 1000 * readings++
  return {
    ...live,
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: millis,
    currentTimeMillis: Effect.sync(millis),
    unsafeCurrentTimeNanos: () => BigInt(millis()) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(millis()) * 1_000_000n)
  }
}

const transcribe = (account: Account, body: Record<string, unknown>) =>
  Effect.flatMap(Transcribe, (useCase) => useCase.transcribe(account, transcribeRequest(body)))

layer(useCasesLayer(), suiteOptions)("Transcribe (captions path) on the production wiring", (it) => {
  describe("serving captions", () => {
    it.effect(
      "a job that ends with its request is completed when its outcome is known, after it was created",
      () =>
        Effect.gen(function* () {
          const account = yield* createAccount({ credits: 5 })
          const served = yield* completed(account, { video: videos.manualAndAuto }).pipe(
            Effect.withClock(steppingClock())
          )
          const job = yield* storedJob(account, served.job_id)
          expect(job.startedAt).not.toBeNull()
          expect(job.completedAt).not.toBeNull()
          const [created, started, done] = [job.createdAt, job.startedAt, job.completedAt].map((at) =>
            at === null ? 0 : DateTime.toEpochMillis(at)
          )
          expect(started).toBe(created)
          expect(done).toBeGreaterThan(created ?? 0)

          const refusal = yield* Effect.flip(
            transcribe(account, { video: videos.noCaptions }).pipe(Effect.withClock(steppingClock()))
          )
          const failed = yield* jobNamedBy(account, refusal as Errors.ApiError)
          expect(failed.status).toBe("failed")
          expect(DateTime.toEpochMillis(failed.completedAt ?? failed.createdAt)).toBeGreaterThan(
            DateTime.toEpochMillis(failed.createdAt)
          )
        })
    )

    it.effect(
      "charges exactly 1 credit once, keyed on the job, and records a completed job with the transcript",
      () =>
        Effect.gen(function* () {
          const account = yield* createAccount({ credits: 5 })
          const served = yield* completed(account, { video: videos.manualAndAuto })
          const segments = trackSegments(videos.manualAndAuto, "en", "manual")
          expect(served).toMatchObject({ status: "completed", mode: "captions_only", credits_used: 1 })
          expect(served.data.transcript).toMatchObject({
            language: "en",
            source: "manual",
            text: Transcript.textOf(segments)
          })

          const owned = yield* ownedOf(account, videos.manualAndAuto)
          expect(owned).toHaveLength(1)
          const transcript = owned[0]
          expect(transcript).toMatchObject({
            language: "en",
            sourceKind: "manual",
            creditsUsed: 1,
            text: Transcript.textOf(segments),
            segmentCount: segments.length
          })

          const job = yield* storedJob(account, served.job_id)
          expect(job).toMatchObject({
            kind: "transcribe",
            status: "completed",
            requestId: served.request_id,
            videoId: videos.manualAndAuto,
            language: "en",
            source: "manual",
            mode: "captions_only",
            creditsUsed: 1,
            error: null,
            transcriptId: transcript?.id
          })
          expect(job.completedAt).not.toBeNull()

          const { balance, charges } = yield* expectBalancedBooks(account)
          expect(balance).toBe(4)
          expect(charges.map((c) => ({ key: c.key, amount: c.amount, jobId: c.jobId }))).toEqual([
            { key: `charge:job:${served.job_id}`, amount: -1, jobId: served.job_id }
          ])
        })
    )

    it.effect(
      "serves the same request again for 0 credits (owned), with its own job and nothing stored",
      () =>
        Effect.gen(function* () {
          const account = yield* createAccount({ credits: 5 })
          const first = yield* completed(account, { video: videos.manualOnly })
          const again = yield* completed(account, { video: `https://youtu.be/${videos.manualOnly}` })
          const third = yield* completed(account, { video: videos.manualOnly, mode: "captions_only" })
          expect([first.credits_used, again.credits_used, third.credits_used]).toEqual([1, 0, 0])
          expect(again.data).toEqual(first.data)
          expect(new Set([first.job_id, again.job_id, third.job_id]).size).toBe(3)

          const owned = yield* ownedOf(account, videos.manualOnly)
          expect(owned).toHaveLength(1)
          const againJob = yield* storedJob(account, again.job_id)
          expect(againJob).toMatchObject({ status: "completed", creditsUsed: 0, transcriptId: owned[0]?.id })
          const { balance, charges } = yield* expectBalancedBooks(account)
          expect(balance).toBe(4)
          expect(charges).toHaveLength(1)
          expect(charges[0]?.jobId).toBe(first.job_id)
        })
    )

    it.effect(
      "serves an owned transcript's segments as their stored JSON text to an entry point that writes JSON",
      () =>
        Effect.gen(function* () {
          const account = yield* createAccount({ credits: 5 })
          const first = yield* completed(account, { video: videos.manualOnly })
          const useCase = yield* Transcribe
          const again = yield* useCase.transcribePreEncoded(
            account,
            transcribeRequest({ video: videos.manualOnly })
          )
          if (!(again instanceof PreEncodedCompleted)) return expect.fail(JSON.stringify(again))
          // The stored text is the schema's encoding of the segments the first answer carried.
          expect(Option.getOrThrow(again.segmentsJson)).toBe(
            Transcript.encodeSegmentsJson(first.data.transcript.segments)
          )
          expect(again.answer.data.transcript.segments).toEqual([])
          expect(completedValues(again).data).toEqual(first.data)
          // Paragraphs and words asked for: still the stored text where the segments hold no words.
          const words = yield* useCase.transcribePreEncoded(
            account,
            transcribeRequest({ video: videos.manualOnly, format: { paragraphs: true, words: true } })
          )
          expect(words instanceof PreEncodedCompleted && Option.isSome(words.segmentsJson)).toBe(true)
        })
    )

    it.effect("serves an owned transcript even when the balance is 0", () =>
      Effect.gen(function* () {
        const account = yield* createAccount({ credits: 1 })
        expect((yield* completed(account, { video: videos.autoOnly })).credits_used).toBe(1)
        const again = yield* completed(account, { video: videos.autoOnly })
        expect(again.credits_used).toBe(0)
        expect(again.data.transcript.source).toBe("auto")
        expect((yield* expectBalancedBooks(account)).balance).toBe(0)
      })
    )
  })

  describe("caption choice (DESIGN decision 9)", () => {
    const cases: ReadonlyArray<{
      readonly name: string
      readonly video: string
      readonly language?: string
      readonly mode?: string
      readonly served: { readonly language: string; readonly source: "manual" | "auto" }
    }> = [
      {
        name: "the asked language, human first",
        video: videos.manualAndAuto,
        language: "en",
        served: { language: "en", source: "manual" }
      },
      {
        name: "another asked language",
        video: videos.multiLanguage,
        language: "fr",
        served: { language: "fr", source: "manual" }
      },
      {
        name: "a regional ask matches its primary language",
        video: videos.multiLanguage,
        language: "fr-CA",
        served: { language: "fr", source: "manual" }
      },
      {
        name: "a region-less ask matches the regional human track before the exact auto one",
        video: videos.portuguese,
        language: "pt",
        served: { language: "pt-BR", source: "manual" }
      },
      {
        name: "no track in the asked language: the original language",
        video: videos.germanOnly,
        language: "es",
        served: { language: "de", source: "manual" }
      },
      {
        name: "the original language, matched by its primary subtag",
        video: videos.portuguese,
        language: "de",
        served: { language: "pt-BR", source: "manual" }
      },
      {
        name: "English original: English",
        video: videos.manualAndAuto,
        language: "ja",
        served: { language: "en", source: "manual" }
      },
      {
        name: "auto captions when there are no others",
        video: videos.autoOnly,
        language: "de",
        served: { language: "en", source: "auto" }
      },
      {
        name: "no language asked: the original language",
        video: videos.germanOnly,
        served: { language: "de", source: "manual" }
      },
      {
        name: "human_captions_only skips the auto track",
        video: videos.portuguese,
        language: "pt",
        mode: "human_captions_only",
        served: { language: "pt-BR", source: "manual" }
      }
    ]

    for (const c of cases) {
      it.effect(`${c.name}: transcript.language names the language returned, and the job records it`, () =>
        Effect.gen(function* () {
          const account = yield* createAccount({ credits: 2 })
          const body = {
            video: c.video,
            ...(c.language ? { language: c.language } : {}),
            ...(c.mode ? { mode: c.mode } : {})
          }
          const served = yield* completed(account, body)
          expect(served.data.transcript).toMatchObject(c.served)
          expect(served.data.transcript.text).toBe(
            Transcript.textOf(trackSegments(c.video, c.served.language, c.served.source))
          )
          expect(served.credits_used).toBe(1)
          const job = yield* storedJob(account, served.job_id)
          expect({ language: job.language, source: job.source }).toEqual(c.served)
          expect((yield* ownedOf(account, c.video)).map((t) => [t.language, t.sourceKind])).toEqual([
            [c.served.language, c.served.source]
          ])
        })
      )
    }

    it.effect("a language that falls back to a transcript already owned is served for 0 credits", () =>
      Effect.gen(function* () {
        const account = yield* createAccount({ credits: 5 })
        expect((yield* completed(account, { video: videos.germanOnly, language: "es" })).credits_used).toBe(1)
        const fr = yield* completed(account, { video: videos.germanOnly, language: "fr" })
        const de = yield* completed(account, { video: videos.germanOnly, language: "de" })
        expect([fr.credits_used, de.credits_used]).toEqual([0, 0])
        expect(fr.data.transcript.language).toBe("de")
        expect(yield* ownedOf(account, videos.germanOnly)).toHaveLength(1)
        expect((yield* expectBalancedBooks(account)).balance).toBe(4)
      })
    )

    it.effect("owning one kind does not make another free: auto owned, human captions are charged", () =>
      Effect.gen(function* () {
        const account = yield* createAccount({ credits: 5 })
        // Portuguese: pt auto exists beside pt-BR manual; the manual one is always chosen first.
        const manual = yield* completed(account, { video: videos.portuguese, language: "pt" })
        const human = yield* completed(account, { video: videos.manualAndAuto, mode: "human_captions_only" })
        const captions = yield* completed(account, { video: videos.manualAndAuto, mode: "captions_only" })
        expect([manual.credits_used, human.credits_used, captions.credits_used]).toEqual([1, 1, 0])
        expect((yield* expectBalancedBooks(account)).balance).toBe(3)
      })
    )
  })

  describe("refusals, each recorded as a failed job the error names", () => {
    it.effect("human_captions_only on a video with only auto captions: 404 no_captions", () =>
      Effect.gen(function* () {
        const account = yield* createAccount({ credits: 5 })
        const error = yield* expectApiError(
          transcribe(account, { video: videos.autoOnly, mode: "human_captions_only" }),
          "no_captions"
        )
        expect(error.status).toBe(404)
        expect(error.details).toMatchObject({ video_id: videos.autoOnly, mode: "human_captions_only" })
        const job = yield* jobNamedBy(account, error)
        expect(job).toMatchObject({
          status: "failed",
          videoId: videos.autoOnly,
          mode: "human_captions_only",
          creditsUsed: 0,
          transcriptId: null,
          error: error.message
        })
        expect(job.videoTitle).toEqual(expect.any(String))
        const { balance, charges } = yield* expectBalancedBooks(account)
        expect([balance, charges.length]).toEqual([5, 0])
        expect(yield* ownedOf(account, videos.autoOnly)).toEqual([])
      })
    )

    it.effect("no_captions (404) for every captions mode, explicit, legacy or the account default", () =>
      Effect.gen(function* () {
        const account = yield* createAccount({ credits: 5 })
        const human = yield* createAccount({
          credits: 5,
          createdAt: newAccount,
          defaultMode: "human_captions_only"
        })
        const requests: ReadonlyArray<readonly [typeof account, Record<string, unknown>]> = [
          [account, { video: videos.noCaptions }],
          [account, { video: videos.noCaptions, mode: "captions_only" }],
          [account, { video: videos.noCaptions, mode: "human_captions_only" }],
          [account, { video: videos.noCaptions, source: "auto" }],
          [account, { video: videos.noCaptions, source: "manual" }],
          [account, { video: videos.noCaptions, source: "auto", allow_asr: false }],
          [human, { video: videos.noCaptions }],
          [human, { video: videos.autoOnly }]
        ]
        for (const [who, body] of requests) {
          const error = yield* expectApiError(transcribe(who, body), "no_captions")
          expect(error.status).toBe(404)
          const job = yield* jobNamedBy(who, error)
          expect(job).toMatchObject({ status: "failed", creditsUsed: 0, error: error.message })
        }
        expect(yield* jobsOf(account)).toHaveLength(6)
        expect(yield* jobsOf(human)).toHaveLength(2)
        for (const who of [account, human]) {
          const { balance, charges } = yield* expectBalancedBooks(who)
          expect([balance, charges.length]).toEqual([5, 0])
        }
      })
    )

    it.effect("an unknown or private video: 404 video_unavailable, whatever the mode", () =>
      Effect.gen(function* () {
        const account = yield* createAccount({ credits: 5, createdAt: newAccount })
        for (const video of [videos.unknown, videos.unavailable]) {
          for (const mode of [undefined, "captions_only", "auto", "speech_to_text_only"]) {
            const error = yield* expectApiError(
              transcribe(account, { video, ...(mode === undefined ? {} : { mode }) }),
              "video_unavailable"
            )
            expect(error.status).toBe(404)
            expect(error.details.video_id).toBe(video)
            const job = yield* jobNamedBy(account, error)
            expect(job).toMatchObject({ status: "failed", videoId: video, videoTitle: null, creditsUsed: 0 })
          }
        }
        expect(yield* jobsOf(account)).toHaveLength(8)
        expect((yield* expectBalancedBooks(account)).charges).toEqual([])
      })
    )

    it.effect("402 payment_required with 0 credits: nothing charged or stored, the job failed", () =>
      Effect.gen(function* () {
        const account = yield* createAccount({ credits: 0 })
        const error = yield* expectApiError(
          transcribe(account, { video: videos.manualAndAuto }),
          "payment_required"
        )
        expect(error.status).toBe(402)
        expect(error.details).toMatchObject({ required: 1, balance: 0 })
        const job = yield* jobNamedBy(account, error)
        expect(job).toMatchObject({
          status: "failed",
          creditsUsed: 0,
          transcriptId: null,
          error: error.message
        })
        const { balance, entries } = yield* expectBalancedBooks(account)
        expect(balance).toBe(0)
        expect(entries).toEqual([])
        expect(yield* ownedOf(account, videos.manualAndAuto)).toEqual([])
        expect(yield* jobsOf(account)).toHaveLength(1)
      })
    )

    it.effect(
      "a balance the caller read before (a batch item's claim) only spares the look: the charge still refuses, and a short one is read again",
      () =>
        Effect.gen(function* () {
          // The use case as a batch item runs it (with the options POST /transcribe never sets).
          const transcribeWith = yield* makeTranscribe
          const request = transcribeRequest({ video: videos.manualAndAuto })
          // Said to cover the price, but 0 now: the captions are fetched, the charge refuses.
          const broke = yield* createAccount({ credits: 0 })
          const refused = yield* expectApiError(
            transcribeWith(broke, request, { availableBefore: 5 }),
            "payment_required"
          )
          expect(refused.details).toMatchObject({ required: 1, balance: 0 })
          expect(yield* jobNamedBy(broke, refused)).toMatchObject({ status: "failed", creditsUsed: 0 })
          expect((yield* expectBalancedBooks(broke)).entries).toEqual([])
          expect(yield* ownedOf(broke, videos.manualAndAuto)).toEqual([])
          // Said to be short, but 1 now (a grant since): read again, so the request runs.
          const granted = yield* createAccount({ credits: 1 })
          const answer = answerValues(yield* transcribeWith(granted, request, { availableBefore: 0 }))
          expect(answer).toBeInstanceOf(Api.TranscribeCompleted)
          expect(answer).toMatchObject({ status: "completed", credits_used: 1 })
          expect((yield* expectBalancedBooks(granted)).balance).toBe(0)
        })
    )

    it.effect(
      "a transcript stored since the caller looked (a batch item's claim saw none) is served by the store: not stored or charged again",
      () =>
        Effect.gen(function* () {
          const transcribeWith = yield* makeTranscribe
          const account = yield* createAccount({ credits: 5 })
          const request = transcribeRequest({ video: videos.manualAndAuto })
          expect(answerValues(yield* transcribeWith(account, request))).toMatchObject({ credits_used: 1 })
          const stored = yield* ownedOf(account, videos.manualAndAuto)
          expect(stored).toHaveLength(1)
          // Said to own nothing: no look, the captions are fetched, and the store finds the key taken.
          const again = answerValues(yield* transcribeWith(account, request, { ownedBefore: false }))
          expect(again).toBeInstanceOf(Api.TranscribeCompleted)
          expect(again).toMatchObject({ status: "completed", credits_used: 0 })
          expect(yield* ownedOf(account, videos.manualAndAuto)).toEqual(stored)
          const jobId = (again as Api.TranscribeCompleted).job_id
          if (jobId === null) return yield* Effect.dieMessage("the answer names no job")
          const jobs = yield* Jobs
          const job = Option.getOrThrow(yield* jobs.get(account.id, jobId))
          expect(job).toMatchObject({ status: "completed", creditsUsed: 0, transcriptId: stored[0]?.id })
          expect((yield* expectBalancedBooks(account)).balance).toBe(4)
        })
    )

    it.effect(
      "without a speech engine, explicit ASR answers 503 asr_unavailable (captions or not); nothing charged",
      () =>
        Effect.gen(function* () {
          const account = yield* createAccount({ credits: 50 })
          for (const body of [
            { video: videos.noCaptions, mode: "auto" },
            { video: videos.noCaptions, mode: "speech_to_text_only" },
            { video: videos.manualAndAuto, mode: "speech_to_text_only" }
          ]) {
            const error = yield* expectApiError(transcribe(account, body), "asr_unavailable")
            expect(error.status).toBe(503)
            const job = yield* jobNamedBy(account, error)
            expect(job).toMatchObject({
              status: "failed",
              mode: body.mode,
              creditsUsed: 0,
              error: error.message
            })
          }
          const { balance, charges } = yield* expectBalancedBooks(account)
          expect([balance, charges.length]).toEqual([50, 0])
          expect(yield* ownedOf(account, videos.manualAndAuto)).toEqual([])
        })
    )

    it.effect("a request refused by validation (400) records nothing and names no job", () =>
      Effect.gen(function* () {
        const account = yield* createAccount({ credits: 5 })
        for (const body of [
          { video: videos.manualAndAuto, mode: "auto", source: "auto" },
          { video: videos.manualAndAuto, mode: "captions_only", allow_asr: false },
          { video: "https://vimeo.com/watch?v=q3Lx8VbT2kA" },
          {
            video: videos.manualAndAuto,
            mode: "auto",
            asr_options: { speakerLabels: true, speakersExpectedMin: 5, speakersExpectedMax: 2 }
          }
        ]) {
          const error = yield* expectApiError(transcribe(account, body), "invalid_request")
          expect(error.details.job_id).toBeUndefined()
        }
        expect(yield* jobsOf(account)).toEqual([])
        expect((yield* expectBalancedBooks(account)).balance).toBe(5)
      })
    )
  })

  describe("webhook_url (DESIGN decisions 6 and 11; names resolve from the test hosts table)", () => {
    const publicHook = "https://hooks.example.com/verbatim"

    it.effect("a webhook that would reach a private address is 400 on webhook_url; nothing recorded", () =>
      Effect.gen(function* () {
        const account = yield* createAccount({ credits: 5 })
        const implicit = yield* createAccount({ credits: 5, createdAt: newAccount })
        for (const [who, body] of [
          [
            account,
            { video: videos.noCaptions, mode: "auto", webhook_url: "https://internal.example.com/hook" }
          ],
          [
            account,
            { video: videos.noCaptions, source: "asr", webhook_url: "https://metadata.example.com/" }
          ],
          [account, { video: videos.noCaptions, mode: "auto", webhook_url: "http://10.0.0.7/hook" }],
          [account, { video: videos.noCaptions, mode: "auto", webhook_url: "https://nowhere.example.com/" }],
          // An implicit ASR default keeps and checks a webhook it was sent.
          [implicit, { video: videos.noCaptions, webhook_url: "https://internal.example.com/hook" }]
        ] as const) {
          const error = yield* expectApiError(transcribe(who, body), "invalid_request")
          expect(error.message).toMatch(/^webhook_url: /)
          expect(error.details.job_id).toBeUndefined()
        }
        expect(yield* jobsOf(account)).toEqual([])
        expect(yield* jobsOf(implicit)).toEqual([])
      })
    )

    it.effect("a public or allow-listed webhook passes: legacy ASR consent reaches asr_unavailable", () =>
      Effect.gen(function* () {
        const account = yield* createAccount({ credits: 5 })
        for (const body of [
          { video: videos.noCaptions, source: "asr", webhook_url: publicHook },
          { video: videos.noCaptions, allow_asr: true, webhook_url: publicHook },
          { video: videos.noCaptions, mode: "auto", webhook_url: "http://localhost:8080/hook" }
        ]) {
          const error = yield* expectApiError(transcribe(account, body), "asr_unavailable")
          expect((yield* jobNamedBy(account, error)).status).toBe("failed")
        }
        const implicit = yield* createAccount({ credits: 5, createdAt: newAccount })
        const quote = yield* transcribe(implicit, { video: videos.noCaptions, webhook_url: publicHook })
        expect(quote.status).toBe("requires_asr_confirmation")
      })
    )

    it.effect("captions modes ignore webhook_url without checking it", () =>
      Effect.gen(function* () {
        const account = yield* createAccount({ credits: 5 })
        for (const mode of ["captions_only", "human_captions_only"]) {
          const served = yield* completed(account, {
            video: videos.manualOnly,
            mode,
            webhook_url: "https://internal.example.com/hook"
          })
          expect(served.status).toBe("completed")
        }
        expect((yield* expectBalancedBooks(account)).balance).toBe(4)
      })
    )
  })

  describe("ASR without consent (DESIGN decisions 1 and 2)", () => {
    it.effect(
      "an implicit auto default quotes ASR for a video without captions: nothing charged, a job recorded",
      () =>
        Effect.gen(function* () {
          const account = yield* createAccount({ credits: 10, createdAt: newAccount })
          expect(account.defaultMode).toBe("auto")
          const quote = yield* transcribe(account, { video: videos.noCaptions })
          expect(quote).toBeInstanceOf(Api.TranscribeConfirmation)
          const expected = Pricing.estimate({ durationSeconds: 720, addOns: [] })
          expect(quote).toMatchObject({
            status: "requires_asr_confirmation",
            mode: "auto",
            credits_used: 0,
            base_credits: expected.base_credits,
            addon_credits: expected.addon_credits,
            estimated_credits: expected.estimated_credits,
            duration_minutes: expected.duration_minutes,
            max_duration_minutes: 480
          })
          expect((quote as Api.TranscribeConfirmation).suggestion).toMatch(/mode=auto/)
          const job = yield* storedJob(account, quote.job_id)
          expect(job).toMatchObject({
            status: "requires_asr_confirmation",
            videoId: videos.noCaptions,
            creditsUsed: 0,
            transcriptId: null,
            error: null
          })

          // The quote prices the add-ons that would apply.
          const options = { speakerLabels: true, summarization: true }
          const withAddOns = yield* transcribe(account, { video: videos.noCaptions, asr_options: options })
          const normalised = Asr.normalise(Schema.decodeUnknownSync(Asr.AsrOptions)(options))
          expect(Either.isRight(normalised)).toBe(true)
          const priced = Pricing.estimate({
            durationSeconds: 720,
            addOns: Either.getOrThrow(normalised).billable
          })
          expect(priced.addon_credits).toBeGreaterThan(0)
          expect(withAddOns).toMatchObject({
            status: "requires_asr_confirmation",
            addon_credits: priced.addon_credits,
            estimated_credits: priced.estimated_credits
          })

          const { balance, entries } = yield* expectBalancedBooks(account)
          expect(balance).toBe(10)
          expect(entries.filter((e) => e.kind !== "grant")).toEqual([])
          expect(yield* ownedOf(account, videos.noCaptions)).toEqual([])
          expect((yield* jobsOf(account)).map((j) => j.status)).toEqual([
            "requires_asr_confirmation",
            "requires_asr_confirmation"
          ])
        })
    )

    it.effect("an implicit speech_to_text_only default quotes even a captioned video", () =>
      Effect.gen(function* () {
        const account = yield* createAccount({ credits: 10, defaultMode: "speech_to_text_only" })
        const quote = yield* transcribe(account, { video: videos.manualAndAuto })
        expect(quote).toMatchObject({
          status: "requires_asr_confirmation",
          mode: "speech_to_text_only",
          credits_used: 0,
          estimated_credits: Pricing.estimate({ durationSeconds: 92, addOns: [] }).estimated_credits
        })
        expect((yield* storedJob(account, quote.job_id)).status).toBe("requires_asr_confirmation")
        expect((yield* expectBalancedBooks(account)).balance).toBe(10)
      })
    )

    it.effect(
      "a video over 480 minutes is `failed` with a suggestion, implicit or explicit; nothing charged",
      () =>
        Effect.gen(function* () {
          const account = yield* createAccount({ credits: 1000, createdAt: newAccount })
          for (const body of [
            { video: videos.veryLong },
            { video: videos.veryLong, mode: "auto" },
            { video: videos.veryLong, mode: "speech_to_text_only" }
          ]) {
            const answer = yield* transcribe(account, body)
            expect(answer).toBeInstanceOf(Api.TranscribeFailed)
            const failed = answer as Api.TranscribeFailed
            expect(failed).toMatchObject({
              status: "failed",
              credits_used: 0,
              duration_minutes: 540,
              max_duration_minutes: 480
            })
            expect(failed.error).toMatch(/480/)
            // Too long says so and stops: no ASR advice, only captions where the video has any.
            expect(failed.suggestion).toMatch(/do not send it again for ASR/)
            expect(failed.suggestion).toMatch(/Only captions can be served/)
            const job = yield* storedJob(account, failed.job_id)
            expect(job).toMatchObject({ status: "failed", error: failed.error, creditsUsed: 0 })
          }
          expect((yield* expectBalancedBooks(account)).balance).toBe(1000)
        })
    )
  })

  describe("estimate", () => {
    it.effect(
      "quotes a captions mode at 1 credit, 0 once owned; charges and records nothing, even at 0 credits",
      () =>
        Effect.gen(function* () {
          const { estimate } = yield* Transcribe
          const account = yield* createAccount({ credits: 0 })
          const before = yield* estimate(
            account,
            estimateRequest({ video: videos.manualOnly, mode: "captions_only" })
          )
          expect(before).toMatchObject({ source: "manual", mode: "captions_only", estimated_credits: 1 })
          const asr = yield* estimate(account, estimateRequest({ video: videos.noCaptions }))
          expect(asr).toMatchObject({
            source: "asr",
            estimated_credits: Pricing.estimate({ durationSeconds: 720, addOns: [] }).estimated_credits
          })
          expect(yield* jobsOf(account)).toEqual([])
          expect((yield* expectBalancedBooks(account)).entries).toEqual([])

          const payer = yield* createAccount({ credits: 2 })
          yield* completed(payer, { video: videos.manualOnly })
          const after = yield* estimate(
            payer,
            estimateRequest({ video: videos.manualOnly, mode: "captions_only" })
          )
          expect(after.estimated_credits).toBe(0)
          expect(yield* jobsOf(payer)).toHaveLength(1)
        })
    )

    it.effect(
      "a captions mode with nothing to serve is 404 no_captions; an unknown video video_unavailable",
      () =>
        Effect.gen(function* () {
          const { estimate } = yield* Transcribe
          const account = yield* createAccount()
          yield* expectApiError(
            estimate(account, estimateRequest({ video: videos.autoOnly, mode: "human_captions_only" })),
            "no_captions"
          )
          yield* expectApiError(
            estimate(account, estimateRequest({ video: videos.unknown })),
            "video_unavailable"
          )
          expect(yield* jobsOf(account)).toEqual([])
        })
    )
  })
})
