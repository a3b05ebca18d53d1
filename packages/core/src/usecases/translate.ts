/**
 * POST /transcripts/{video_id}/translate: an owned transcript into another language, stored as an
 * owned transcript in the target language whose segments keep the source's start and end times.
 *
 * 1. The account's transcripts of the video (404 when none). One already in the target language is
 *    returned for 0 credits (`provider_used: null`).
 * 2. The source: the best owned transcript by kind (human captions, auto captions, ASR) and, within
 *    a kind, the OLDEST (an original precedes the translations made from it, which are stored with
 *    its kind), in `source_language` when given (403 when none is owned in it, as GET does).
 * 3. The providers to try, in order: `provider: "ai"` → the machine translation engine (the
 *    `Translator` port: the configured model, or Apertium on the embedded default); otherwise the
 *    platform's caption translation first, then the engine only with `allow_ai_fallback`.
 *    Providers that cannot do this pair are dropped before anything is charged; when none is left,
 *    400 `unsupported_language` naming `target_language`, the pair and why each refused.
 * 4. The price (1 credit per 2,500 characters of the source text) held from the available balance
 *    (`credit-holds.ts`): 402 before any work when it cannot be.
 * 5. The translation; a provider that fails hands over to the next, the last failure is the answer
 *    (nothing stored, nothing charged).
 * 6. In ONE transaction: store the translation and, when this request created it, charge its price
 *    keyed on the new transcript (`charge:translation:<id>`), settling the hold; any other ending
 *    releases it. A concurrent request for the same
 *    translation finds the row stored (the unique account, video, language and source kind) and
 *    answers it for 0 credits, so a translation is charged exactly once.
 */
import { Api, Errors, Language, Pricing, Transcript } from "@verbatim/domain"
import { Array as Arr, DateTime, Effect, Either, Layer, Option, Order } from "effect"
import type { Account } from "../ports/accounts.js"
import { Ledger } from "../ports/ledger.js"
import { Secrets } from "../ports/secrets.js"
import { Transactor } from "../ports/transactor.js"
import { type TranscriptRecord, Transcripts } from "../ports/transcripts.js"
import { Translator } from "../ports/translator.js"
import { VideoPlatform } from "../ports/video-platform.js"
import { requestHoldExpiry } from "./credit-holds.js"
import { fromPlatformError, insufficientCredits, notFound } from "./failures.js"
import { transcriptPayload } from "./payload.js"
import { byPreference, isTranslation } from "./stored-transcripts.js"
import { Translate } from "./tags.js"

type Provider = Api.TranslateProvider

/** The source to translate: an original first, best kind first, then oldest (the original before its translations). */
const originalFirst: Order.Order<TranscriptRecord> = Order.combine(
  Order.combine(
    Order.mapInput(Order.boolean, (r: TranscriptRecord) => isTranslation(r)),
    Order.mapInput(Transcript.bySourceKind, (r: TranscriptRecord) => r.sourceKind)
  ),
  Order.mapInput(Order.number, (r: TranscriptRecord) => r.createdAt.epochMillis)
)

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

const fullPayload = { segments: true, paragraphs: false, words: false }

/** A provider that can do the pair, with how it translates. */
interface Ready {
  readonly provider: Provider
  readonly name: string
  readonly run: Effect.Effect<ReadonlyArray<Transcript.Segment>, Errors.ApiError>
}

const unsupported = (
  source: TranscriptRecord,
  target: Language.LanguageCode,
  refusals: ReadonlyArray<string>
) =>
  Errors.apiError(
    "unsupported_language",
    `target_language ${target} is not supported for this transcript (${source.language} → ${target}): ${refusals.join("; ")}`,
    {
      field: "target_language",
      target_language: target,
      source_language: source.language,
      refusals
    }
  )

export const TranslateLive = Layer.effect(
  Translate,
  Effect.gen(function* () {
    const transcripts = yield* Transcripts
    const ledger = yield* Ledger
    const tx = yield* Transactor
    const secrets = yield* Secrets
    const platform = yield* VideoPlatform
    const translator = yield* Translator

    const answer = (record: TranscriptRecord, credits: number, provider: Provider | null, message: string) =>
      new Api.TranslateResponse({
        success: true,
        message,
        language: record.language,
        translated_from: record.translatedFrom ?? null,
        credits_used: credits,
        provider_used: provider,
        transcript: transcriptPayload(record, fullPayload)
      })

    /** The platform's translation of the source's own caption track, when the video offers the target. */
    const platformReady = (source: TranscriptRecord, target: Language.LanguageCode) =>
      Effect.gen(function* () {
        const kind = source.sourceKind
        if (kind === "asr") {
          return Either.left(
            "platform: the transcript was made by speech recognition, not from a caption track"
          )
        }
        const details = yield* platform.video(source.videoId as never).pipe(Effect.either)
        if (details._tag === "Left") {
          return Either.left(`platform: ${fromPlatformError(details.left).message}`)
        }
        const track = details.right.captionTracks.find(
          (t) => t.kind === kind && same(t.language, source.language)
        )
        if (track === undefined) {
          return Either.left(`platform: the video has no ${kind} ${source.language} caption track any more`)
        }
        if (!details.right.translationLanguages.some((l) => same(l, target))) {
          return Either.left(`platform: the video's captions are not translated into ${target}`)
        }
        const run = platform.captions(source.videoId as never, track, { translateTo: target }).pipe(
          Effect.mapError(fromPlatformError),
          // The platform translates the same cues: on as many segments, the source's times are kept.
          Effect.map((segments) =>
            segments.length === source.segments.length
              ? source.segments.map(
                  (s, i) =>
                    new Transcript.Segment(
                      { text: segments[i]?.text ?? "", start: s.start, end: s.end },
                      true
                    )
                )
              : segments
          )
        )
        return Either.right<Ready>({ provider: "platform", name: "the platform's caption translation", run })
      })

    /** The machine translation engine, when it does the pair. */
    const engineReady = (source: TranscriptRecord, target: Language.LanguageCode) =>
      translator.supports(source.language, target).pipe(
        Effect.as(
          Either.right<Ready>({
            provider: "ai",
            name: translator.engine,
            run: translator
              .translate({ source: source.language, target, texts: source.segments.map((s) => s.text) })
              .pipe(
                Effect.map((texts) =>
                  source.segments.map(
                    (s, i) =>
                      new Transcript.Segment(
                        { text: (texts[i] ?? "").trim(), start: s.start, end: s.end },
                        true
                      )
                  )
                ),
                Effect.mapError((error) =>
                  error._tag === "TranslationUnsupported"
                    ? unsupported(source, target, [`${error.engine}: ${error.reason}`])
                    : Errors.apiError(
                        "translation_unavailable",
                        `translation by ${error.engine} failed: ${error.reason}`,
                        {
                          engine: error.engine
                        }
                      )
                )
              )
          })
        ),
        Effect.catchTag("TranslationUnsupported", (refusal) =>
          Effect.succeed(Either.left(`ai (${refusal.engine}): ${refusal.reason}`))
        )
      )

    const translate = Effect.fn("Translate.translate")(function* (
      account: Account,
      videoId: string,
      request: Api.TranslateRequest
    ) {
      const target = request.target_language
      yield* Effect.annotateCurrentSpan({ "verbatim.video_id": videoId, "verbatim.target_language": target })
      const owned = yield* transcripts.owned(account.id, videoId, {})
      if (owned.length === 0) return yield* notFound(`transcript of video ${videoId}`, { video_id: videoId })

      const already = Arr.head(
        Arr.sort(
          owned.filter((r) => same(r.language, target)),
          byPreference
        )
      )
      if (Option.isSome(already)) {
        return answer(
          already.value,
          0,
          null,
          `the account already owns the ${target} transcript of video ${videoId}`
        )
      }

      const wanted = request.source_language
      // Without source_language, a transcript already in the target's language is no source while
      // another language is owned (pt-BR human captions do not make a pt translation of en refused).
      const elsewhere = owned.filter((r) => !Language.samePrimary(r.language, target))
      const candidates =
        wanted !== undefined
          ? owned.filter((r) => same(r.language, wanted))
          : elsewhere.length > 0
            ? elsewhere
            : owned
      const best = Arr.head(Arr.sort(candidates, originalFirst))
      if (Option.isNone(best)) {
        return yield* Errors.apiError(
          "forbidden",
          `the account owns no ${wanted} transcript of video ${videoId}`,
          {
            video_id: videoId,
            source_language: wanted,
            owned_languages: Arr.dedupe(owned.map((r) => r.language))
          }
        )
      }
      const source = best.value
      if (Language.samePrimary(source.language, target)) {
        return yield* unsupported(source, target, [`the transcript is already in ${source.language}`])
      }

      const order: ReadonlyArray<Provider> =
        request.provider === "ai" ? ["ai"] : request.allow_ai_fallback ? ["platform", "ai"] : ["platform"]
      const refusals: Array<string> = []
      const ready: Array<Ready> = []
      for (const provider of order) {
        const found =
          provider === "platform" ? yield* platformReady(source, target) : yield* engineReady(source, target)
        if (found._tag === "Right") ready.push(found.right)
        else refusals.push(found.left)
      }
      if (ready.length === 0) {
        if (!order.includes("ai")) refusals.push("ai: not tried (allow_ai_fallback is false)")
        return yield* unsupported(source, target, refusals)
      }

      const price = Pricing.translationCreditsForText(source.text, false)
      // The price is held while the providers work (parallel requests cannot all start on the same
      // credits), settled by the charge when stored, released on any other ending (the reconciler
      // releases it once expired if this process dies meanwhile).
      const holdKey = `hold:translate:${yield* secrets.uuid}`
      const heldAt = yield* DateTime.now
      if (price > 0) {
        yield* ledger
          .hold(
            {
              accountId: account.id,
              key: holdKey,
              reason: `translation of video ${videoId} from ${source.language} to ${target}`,
              at: heldAt,
              expiresAt: requestHoldExpiry(heldAt)
            },
            price
          )
          .pipe(
            Effect.catchTag("InsufficientCredits", (error) =>
              insufficientCredits(error.required, error.balance)
            )
          )
      }
      const releaseHold =
        price > 0
          ? Effect.flatMap(DateTime.now, (at) => ledger.release(account.id, holdKey, at)).pipe(
              Effect.catchAll((error) =>
                Effect.logWarning("could not release a translation's hold; the reconciler will", error)
              )
            )
          : Effect.void

      return yield* Effect.gen(function* () {
        let done: { readonly ready: Ready; readonly segments: ReadonlyArray<Transcript.Segment> } | null =
          null
        let failure: Errors.ApiError | null = null
        for (const candidate of ready) {
          const result = yield* candidate.run.pipe(Effect.either)
          if (result._tag === "Right") {
            done = { ready: candidate, segments: result.right }
            break
          }
          failure = result.left
          yield* Effect.logWarning(`translation by ${candidate.name} failed`, result.left.message)
        }
        if (done === null) {
          return yield* failure ??
            Errors.apiError("internal_error", "no provider translated the transcript", {})
        }

        const text = Transcript.textOf(done.segments)
        const at = yield* DateTime.now
        // Never older than its source, even where clocks tie or another process's ran ahead: the
        // source rule above takes the oldest, and a translation must never be taken for its original.
        const createdAt = DateTime.max(at, DateTime.add(source.createdAt, { millis: 1 }))
        const record: TranscriptRecord = {
          ...source,
          id: (yield* secrets.uuid) as TranscriptRecord["id"],
          language: target,
          text,
          segments: done.segments,
          hasTimestamps: source.hasTimestamps,
          wordCount: Transcript.countWords(text),
          segmentCount: done.segments.length,
          creditsUsed: price,
          summary: null,
          mindMap: null,
          asrIntelligence: null,
          createdAt,
          translatedFrom: source.language
        }
        const provider = done.ready.provider
        const stored = yield* tx
          .transaction(
            Effect.gen(function* () {
              const stored = yield* transcripts.store(record)
              if (stored.created && price > 0) {
                yield* ledger.settleHold(
                  holdKey,
                  {
                    accountId: account.id,
                    key: `charge:translation:${stored.record.id}`,
                    reason: `translation of video ${videoId} from ${source.language} to ${target} (${Pricing.translationCharacters(source.text)} characters, ${done.ready.name})`,
                    at
                  },
                  price
                )
              }
              return stored
            })
          )
          .pipe(
            Effect.catchTag("InsufficientCredits", (error) =>
              insufficientCredits(error.required, error.balance)
            )
          )
        if (!stored.created) {
          return answer(
            stored.record,
            0,
            null,
            `the account already owns the ${target} transcript of video ${videoId}`
          )
        }
        return answer(
          stored.record,
          price,
          provider,
          `translated from ${source.language} to ${target} by ${done.ready.name}`
        )
      }).pipe(Effect.ensuring(releaseHold))
    })

    return Translate.of({ translate })
  })
)
