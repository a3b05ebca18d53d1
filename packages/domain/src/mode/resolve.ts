/**
 * Mode resolution. From the raw mode fields of a POST /transcribe or POST /batch request (video or
 * upload_id, mode, legacy source and allow_asr, webhook_url) and the account's default mode, it
 * decides the mode the request runs with, whether it may run ASR and on whose word (explicit
 * consent, or the implicit account default that needs confirmation: DESIGN decision 1), what the
 * input is, and the webhook it will use (none when the mode ignores it: DESIGN decision 11).
 * The rules are the spec's POST /transcribe rules 1-5 and POST /batch rules 1-3.
 */
import { Either, Schema } from "effect"
import { ModeError } from "./error.js"
import { canUseAsr, type LegacySource, Mode } from "./mode.js"

/** The raw fields of a transcribe or batch request that decide its mode, as the spec names them. */
export interface ModeRequest {
  readonly video?: string | undefined
  readonly upload_id?: string | undefined
  readonly mode?: Mode | undefined
  readonly source?: LegacySource | undefined
  readonly allow_asr?: boolean | undefined
  readonly webhook_url?: string | undefined
}

/** Which endpoint the request came to. */
export const RequestKind = Schema.Literal("transcribe", "batch")
export type RequestKind = typeof RequestKind.Type

/** What resolution needs besides the request: the endpoint and the account's stored default mode. */
export interface ModeContext {
  readonly kind: RequestKind
  readonly accountDefault: Mode
}

/**
 * May the request run ASR? `never` (a captions mode), `consented` (an explicit ASR mode, a legacy
 * ASR field or an upload), or `needs_confirmation` (an ASR mode that is only the account default).
 */
export const AsrPermission = Schema.Literal("never", "consented", "needs_confirmation")
export type AsrPermission = typeof AsrPermission.Type

/** Where the mode came from: the `mode` field, the legacy fields, an upload alone, or the account default. */
export const ModeOrigin = Schema.Literal("mode", "legacy", "upload", "default")
export type ModeOrigin = typeof ModeOrigin.Type

/** What is transcribed: a platform video (or, for a batch, videos) or an uploaded file. */
export const InputKind = Schema.Literal("video", "upload")
export type InputKind = typeof InputKind.Type

export class ResolvedMode extends Schema.Class<ResolvedMode>("ResolvedMode")({
  /** The mode the request runs with (reported as `mode` in the response). */
  mode: Mode,
  asr: AsrPermission,
  origin: ModeOrigin,
  input: InputKind,
  /** The webhook to deliver to; absent when none was sent or the mode ignores it. */
  webhookUrl: Schema.optional(Schema.String),
  /** Set when a batch without webhook_url fell back from an ASR account default to captions_only. */
  downgradedFrom: Schema.optional(Mode),
  /**
   * Only human-made caption tracks count as captions: `human_captions_only`, and the legacy pair
   * source=manual + allow_asr=true (mode `auto` over human tracks, else speech recognition).
   */
  humanCaptionsOnly: Schema.optionalWith(Schema.Boolean, { default: () => false })
}) {
  /** Whether ASR may run at all (possibly after confirmation). */
  get asrPermitted(): boolean {
    return this.asr !== "never"
  }
  /** Whether ASR may start now, without asking. */
  get asrConsented(): boolean {
    return this.asr === "consented"
  }
}

const fail = (field: ModeError["field"], reason: string): Either.Either<never, ModeError> =>
  Either.left(new ModeError({ field, reason }))

/** A string field counts as sent only when it holds something besides whitespace. */
const present = (value: string | undefined): string | undefined => {
  const trimmed = value?.trim()
  return trimmed === undefined || trimmed.length === 0 ? undefined : trimmed
}

/** A webhook that will be used must be an absolute http or https URL (address checks come later). */
const checkWebhook = (url: string): Either.Either<string, ModeError> =>
  Either.try(() => new URL(url)).pipe(
    Either.mapLeft(
      () => new ModeError({ field: "webhook_url", reason: "must be an absolute http or https URL" })
    ),
    Either.flatMap((parsed) =>
      (parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.hostname.length > 0
        ? Either.right(url)
        : fail("webhook_url", "must be an absolute http or https URL")
    )
  )

const optionalWebhook = (url: string | undefined): Either.Either<string | undefined, ModeError> =>
  url === undefined ? Either.right(undefined) : checkWebhook(url)

const requiredWebhook = (url: string | undefined, why: string): Either.Either<string, ModeError> =>
  url === undefined ? fail("webhook_url", `webhook_url is required ${why}`) : checkWebhook(url)

/**
 * The mode the legacy fields mean: source=auto (the default) is captions only, and with
 * allow_asr=true captions with ASR fallback (`auto`); source=manual is human captions only, and
 * with allow_asr=true human captions with ASR fallback (reported as `auto`, its tracks limited to
 * human ones by `humanCaptionsOnly`); source=asr is speech to text (allow_asr only governs a
 * fallback, so it changes nothing there).
 */
export const legacyMode = (
  source: LegacySource | undefined,
  allowAsr: boolean | undefined
): Either.Either<Mode, ModeError> => {
  switch (source ?? "auto") {
    case "asr":
      return Either.right("speech_to_text_only")
    case "manual":
      return Either.right(allowAsr === true ? "auto" : "human_captions_only")
    case "auto":
      return Either.right(allowAsr === true ? "auto" : "captions_only")
  }
}

const legacySent = (request: ModeRequest): boolean =>
  request.source !== undefined || request.allow_asr !== undefined

/** Rule 3 of POST /transcribe (and Versioning 2): mode replaces the legacy fields, never both. */
const checkNoMixing = (request: ModeRequest): Either.Either<void, ModeError> =>
  request.mode === undefined
    ? Either.void
    : request.source !== undefined
      ? fail("source", "mode cannot be combined with the legacy field source; send only mode")
      : request.allow_asr !== undefined
        ? fail("allow_asr", "mode cannot be combined with the legacy field allow_asr; send only mode")
        : Either.void

const resolved = (fields: {
  readonly mode: Mode
  readonly asr: AsrPermission
  readonly origin: ModeOrigin
  readonly input: InputKind
  readonly webhookUrl: string | undefined
  readonly downgradedFrom?: Mode
  readonly humanCaptionsOnly?: boolean
}): ResolvedMode =>
  new ResolvedMode(
    { ...fields, humanCaptionsOnly: fields.humanCaptionsOnly ?? fields.mode === "human_captions_only" },
    true
  )

/** POST /transcribe rule 2: an upload always goes to ASR and always needs a webhook. */
const resolveUpload = (
  request: ModeRequest,
  webhook: string | undefined
): Either.Either<ResolvedMode, ModeError> => {
  if (request.mode !== undefined && request.mode !== "speech_to_text_only") {
    return fail(
      "mode",
      `an upload is always transcribed by speech recognition: omit mode or send speech_to_text_only, not ${request.mode}`
    )
  }
  if (request.source !== undefined && request.source !== "asr") {
    return fail("source", `with upload_id, source must be omitted or asr, not ${request.source}`)
  }
  const origin: ModeOrigin = request.mode !== undefined ? "mode" : legacySent(request) ? "legacy" : "upload"
  return requiredWebhook(webhook, "with upload_id").pipe(
    Either.map((webhookUrl) =>
      resolved({ mode: "speech_to_text_only", asr: "consented", origin, input: "upload", webhookUrl })
    )
  )
}

/** An explicit mode: consent to ASR when the mode can use it; the webhook only matters then. */
const resolveExplicit = (
  mode: Mode,
  kind: RequestKind,
  webhook: string | undefined
): Either.Either<ResolvedMode, ModeError> => {
  if (!canUseAsr(mode)) {
    return Either.right(
      resolved({ mode, asr: "never", origin: "mode", input: "video", webhookUrl: undefined })
    )
  }
  const webhookUrl =
    kind === "batch" ? requiredWebhook(webhook, `by a batch with mode=${mode}`) : optionalWebhook(webhook)
  return Either.map(webhookUrl, (url) =>
    resolved({ mode, asr: "consented", origin: "mode", input: "video", webhookUrl: url })
  )
}

/** The legacy fields: an ASR meaning is consent and always needs a webhook (both endpoints). */
const resolveLegacy = (
  request: ModeRequest,
  webhook: string | undefined
): Either.Either<ResolvedMode, ModeError> =>
  Either.flatMap(legacyMode(request.source, request.allow_asr), (mode) => {
    if (!canUseAsr(mode)) {
      return Either.right(
        resolved({ mode, asr: "never", origin: "legacy", input: "video", webhookUrl: undefined })
      )
    }
    const why = request.source === "asr" ? "with source=asr" : "with allow_asr=true"
    return Either.map(requiredWebhook(webhook, why), (url) =>
      resolved({
        mode,
        asr: "consented",
        origin: "legacy",
        input: "video",
        webhookUrl: url,
        humanCaptionsOnly: request.source === "manual"
      })
    )
  })

/**
 * The account default (POST /transcribe rule 4, POST /batch rule 3). An ASR default is never
 * consent: it needs confirmation. A batch applies an ASR default only when webhook_url is set,
 * and otherwise runs captions_only.
 */
const resolveDefault = (
  accountDefault: Mode,
  kind: RequestKind,
  webhook: string | undefined
): Either.Either<ResolvedMode, ModeError> => {
  if (!canUseAsr(accountDefault)) {
    return Either.right(
      resolved({
        mode: accountDefault,
        asr: "never",
        origin: "default",
        input: "video",
        webhookUrl: undefined
      })
    )
  }
  if (kind === "batch" && webhook === undefined) {
    return Either.right(
      resolved({
        mode: "captions_only",
        asr: "never",
        origin: "default",
        input: "video",
        webhookUrl: undefined,
        downgradedFrom: accountDefault
      })
    )
  }
  return Either.map(optionalWebhook(webhook), (url) =>
    resolved({
      mode: accountDefault,
      asr: "needs_confirmation",
      origin: "default",
      input: "video",
      webhookUrl: url
    })
  )
}

/**
 * Resolves the mode of a request. A batch reads neither `video` nor `upload_id` (it carries
 * `video_ids`, checked with the batch limits). Blank strings count as not sent.
 */
export const resolveMode = (
  request: ModeRequest,
  context: ModeContext
): Either.Either<ResolvedMode, ModeError> => {
  const webhook = present(request.webhook_url)
  if (context.kind === "transcribe") {
    const video = present(request.video)
    const upload = present(request.upload_id)
    if (video === undefined && upload === undefined) {
      return fail("video", "video is required unless upload_id is set")
    }
    if (video !== undefined && upload !== undefined) {
      return fail("upload_id", "send either video or upload_id, not both")
    }
    return Either.flatMap(checkNoMixing(request), () => {
      if (upload !== undefined) return resolveUpload(request, webhook)
      if (request.mode !== undefined) return resolveExplicit(request.mode, "transcribe", webhook)
      if (legacySent(request)) return resolveLegacy(request, webhook)
      return resolveDefault(context.accountDefault, "transcribe", webhook)
    })
  }
  return Either.flatMap(checkNoMixing(request), () => {
    if (request.mode !== undefined) return resolveExplicit(request.mode, "batch", webhook)
    if (legacySent(request)) return resolveLegacy(request, webhook)
    return resolveDefault(context.accountDefault, "batch", webhook)
  })
}
