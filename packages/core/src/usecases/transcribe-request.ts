/**
 * The checks of a transcribe request before any work: the mode (spec rules 1-5 with the account
 * default), the ASR options as they will apply, the webhook's addresses when it will be used, and
 * the video reference. Each failure names its field in a 400 `invalid_request`; a `language` that
 * names no language (`unknownLanguage`) is 400 `unsupported_language`.
 */
import { type Api, Asr, Errors, type Ids, Language, Mode, Reference } from "@verbatim/domain"
import { Effect, Either } from "effect"
import type { Account } from "../ports/accounts.js"
import { AddressResolver } from "../ports/webhooks.js"
import { fromAsrOptionsError, fromModeError, fromReferenceError } from "./failures.js"
import { checkWebhookUrl, type WebhookAllowList } from "./webhook-url.js"

export interface ResolvedRequest {
  readonly mode: Mode.ResolvedMode
  readonly asr: Asr.EffectiveAsrOptions
  /** What is transcribed: a platform video, or an upload. */
  readonly target:
    | { readonly _tag: "video"; readonly id: Ids.VideoId }
    | { readonly _tag: "upload"; readonly id: string }
  /** The id jobs and responses carry as `video_id`: the video id, or the upload id. */
  readonly videoId: string
  /** What to do once the platform said whether usable captions exist. */
  readonly step: (hasUsableCaptions: boolean) => Mode.TranscriptionStep
}

/**
 * What checks a webhook's addresses, passed in rather than provided: providing services per request
 * copies and compares the fiber's whole context, on the hot path of every transcribe request.
 */
export interface WebhookChecks {
  readonly resolver: AddressResolver["Type"]
  readonly allowList: WebhookAllowList["Type"]
}

/**
 * A requested language that is no ISO 639-1 language (`xx`): refused before anything is charged,
 * rather than served in another language for a credit (decision TR-23). A real language the
 * video lacks still falls back, as the spec says, and the answer's `language` says which.
 */
export const unknownLanguage = (field: string, language: Language.LanguageCode): Errors.ApiError =>
  Errors.apiError(
    "unsupported_language",
    `${field} "${language}" is not a language code: use an ISO 639-1 code such as en, de or pt-BR`,
    { field, [field]: language }
  )

export const resolveRequest = (
  account: Account,
  request: Api.TranscribeRequest,
  webhooks: WebhookChecks
): Effect.Effect<ResolvedRequest, Errors.ApiError> =>
  Effect.gen(function* () {
    if (request.language !== undefined && !Language.isKnown(request.language)) {
      return yield* Effect.fail(unknownLanguage("language", request.language))
    }
    const mode = yield* Either.mapLeft(
      Mode.resolveMode(
        {
          video: request.video,
          upload_id: request.upload_id,
          mode: request.mode,
          source: request.source,
          allow_asr: request.allow_asr,
          webhook_url: request.webhook_url
        },
        { kind: "transcribe", accountDefault: account.defaultMode }
      ),
      fromModeError
    )
    const asr = yield* Either.mapLeft(Asr.normalise(request.asr_options), fromAsrOptionsError)
    // A webhook that will be used must not reach a private address (DESIGN decision 6).
    if (mode.webhookUrl !== undefined) {
      yield* checkWebhookUrl(mode.webhookUrl, webhooks.allowList).pipe(
        Effect.provideService(AddressResolver, webhooks.resolver)
      )
    }
    const target: ResolvedRequest["target"] =
      mode.input === "upload"
        ? { _tag: "upload", id: request.upload_id ?? "" }
        : {
            _tag: "video",
            id: yield* Either.mapLeft(Reference.parseVideo(request.video ?? ""), fromReferenceError("video"))
          }
    const resolved: ResolvedRequest = {
      mode,
      asr,
      target,
      videoId: target.id,
      step: (hasUsableCaptions) => Mode.decideStep(mode, hasUsableCaptions)
    }
    return resolved
  })
