import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import type { ModeError } from "../../src/mode/error.js"
import { canUseAsr, type Mode } from "../../src/mode/mode.js"
import { type ModeContext, type ModeRequest, type ResolvedMode, resolveMode } from "../../src/mode/resolve.js"
import { isPresent, mode, modeContext, modeRequest, someText, validWebhook, webhook } from "./arbitraries.js"

const transcribe = (accountDefault: Mode = "captions_only"): ModeContext => ({
  kind: "transcribe",
  accountDefault
})
const batch = (accountDefault: Mode = "captions_only"): ModeContext => ({ kind: "batch", accountDefault })

const ok = (request: ModeRequest, context: ModeContext): ResolvedMode =>
  Either.match(resolveMode(request, context), {
    onLeft: (error) => {
      throw new Error(`expected a resolved mode, got ${error.message}`)
    },
    onRight: (resolved) => resolved
  })

const err = (request: ModeRequest, context: ModeContext): ModeError =>
  Either.match(resolveMode(request, context), {
    onLeft: (error) => error,
    onRight: (resolved) => {
      throw new Error(`expected an error, got mode ${resolved.mode}`)
    }
  })

const fieldOf = (result: Either.Either<ResolvedMode, ModeError>) =>
  Either.match(result, { onLeft: (error) => error.field, onRight: () => undefined })

const runs = { numRuns: 500 }

const legacySent = (r: ModeRequest) => r.source !== undefined || r.allow_asr !== undefined
const captionsModes: ReadonlyArray<Mode> = ["captions_only", "human_captions_only"]
const hook = "https://example.com/hook"

describe("resolveMode laws", () => {
  it("never combines mode with a legacy field", () => {
    fc.assert(
      fc.property(modeRequest, modeContext, mode, (request, context, m) => {
        fc.pre(legacySent(request))
        const result = resolveMode({ ...request, mode: m }, context)
        expect(Either.isLeft(result)).toBe(true)
      }),
      runs
    )
  })

  it("names the legacy field when mode is combined with it and the input is otherwise fine", () => {
    fc.assert(
      fc.property(modeRequest, modeContext, mode, (request, context, m) => {
        fc.pre(legacySent(request))
        const single = { ...request, mode: m, video: "dQw4w9WgXcQ", upload_id: undefined }
        const error = err(single, context)
        expect(error.field).toBe(request.source !== undefined ? "source" : "allow_asr")
      }),
      runs
    )
  })

  it("a transcribe request needs exactly one of video and upload_id", () => {
    fc.assert(
      fc.property(modeRequest, mode, (request, accountDefault) => {
        const result = resolveMode(request, transcribe(accountDefault))
        const video = isPresent(request.video)
        const upload = isPresent(request.upload_id)
        if (!video && !upload) expect(fieldOf(result)).toBe("video")
        if (video && upload) expect(fieldOf(result)).toBe("upload_id")
        if (Either.isRight(result)) {
          expect(video !== upload).toBe(true)
          expect(result.right.input).toBe(upload ? "upload" : "video")
        }
      }),
      runs
    )
  })

  it("an upload is refused with any mode but speech_to_text_only and any source but asr", () => {
    fc.assert(
      fc.property(modeRequest, mode, (request, accountDefault) => {
        const upload = { ...request, video: undefined, upload_id: "an-upload" }
        const result = resolveMode(upload, transcribe(accountDefault))
        if (request.mode !== undefined && request.mode !== "speech_to_text_only") {
          expect(Either.isLeft(result)).toBe(true)
        }
        if (request.source !== undefined && request.source !== "asr") expect(Either.isLeft(result)).toBe(true)
        if (!isPresent(request.webhook_url)) expect(Either.isLeft(result)).toBe(true)
      }),
      runs
    )
  })

  it("a resolved upload always runs speech_to_text_only with consent and a webhook", () => {
    fc.assert(
      fc.property(modeRequest, modeContext, (request, context) => {
        const result = resolveMode(request, context)
        if (Either.isRight(result) && result.right.input === "upload") {
          expect(result.right.mode).toBe("speech_to_text_only")
          expect(result.right.asr).toBe("consented")
          expect(result.right.webhookUrl).toBeDefined()
        }
      }),
      runs
    )
  })

  it("ASR is permitted exactly when the resolved mode can use it", () => {
    fc.assert(
      fc.property(modeRequest, modeContext, (request, context) => {
        const result = resolveMode(request, context)
        if (Either.isRight(result)) {
          expect(result.right.asrPermitted).toBe(canUseAsr(result.right.mode))
          if (captionsModes.includes(result.right.mode)) expect(result.right.asr).toBe("never")
        }
      }),
      runs
    )
  })

  it("consent comes only from an explicit mode, a legacy field or an upload; a default only asks", () => {
    fc.assert(
      fc.property(modeRequest, modeContext, (request, context) => {
        const result = resolveMode(request, context)
        if (Either.isRight(result)) {
          const r = result.right
          if (r.asr === "consented") expect(["mode", "legacy", "upload"]).toContain(r.origin)
          if (r.origin === "default") {
            expect(request.mode).toBeUndefined()
            expect(legacySent(request)).toBe(false)
            expect(r.asr).not.toBe("consented")
          }
          if (r.asr === "needs_confirmation") expect(r.origin).toBe("default")
        }
      }),
      runs
    )
  })

  it("ASR through legacy fields or in a batch always has a webhook", () => {
    fc.assert(
      fc.property(modeRequest, modeContext, (request, context) => {
        const result = resolveMode(request, context)
        if (Either.isRight(result) && result.right.asrPermitted) {
          if (result.right.origin === "legacy" || context.kind === "batch") {
            expect(result.right.webhookUrl).toBeDefined()
          }
        }
      }),
      runs
    )
  })

  it("the mode field is obeyed; a default is the account's, or captions_only when a batch downgrades it", () => {
    fc.assert(
      fc.property(modeRequest, modeContext, (request, context) => {
        const result = resolveMode(request, context)
        if (Either.isRight(result)) {
          const r = result.right
          if (request.mode !== undefined) expect(r.mode).toBe(request.mode)
          if (r.origin === "default") {
            if (r.downgradedFrom === undefined) expect(r.mode).toBe(context.accountDefault)
            else {
              expect(context.kind).toBe("batch")
              expect(r.mode).toBe("captions_only")
              expect(r.downgradedFrom).toBe(context.accountDefault)
              expect(canUseAsr(context.accountDefault)).toBe(true)
              expect(isPresent(request.webhook_url)).toBe(false)
            }
          } else expect(r.downgradedFrom).toBeUndefined()
        }
      }),
      runs
    )
  })

  it("captions modes ignore webhook_url without checking it (DESIGN decision 11)", () => {
    fc.assert(
      fc.property(modeRequest, modeContext, webhook, (request, context, otherWebhook) => {
        const result = resolveMode(request, context)
        if (
          Either.isRight(result) &&
          result.right.asr === "never" &&
          result.right.downgradedFrom === undefined
        ) {
          expect(result.right.webhookUrl).toBeUndefined()
          expect(resolveMode({ ...request, webhook_url: otherWebhook }, context)).toEqual(result)
        }
      }),
      runs
    )
  })

  it("a webhook that is kept is the trimmed webhook_url that was sent", () => {
    fc.assert(
      fc.property(modeRequest, modeContext, (request, context) => {
        const result = resolveMode(request, context)
        if (Either.isRight(result) && result.right.webhookUrl !== undefined) {
          expect(result.right.webhookUrl).toBe(request.webhook_url?.trim())
        }
      }),
      runs
    )
  })

  it("a batch reads neither video nor upload_id", () => {
    fc.assert(
      fc.property(modeRequest, mode, someText, someText, (request, accountDefault, video, upload) => {
        const context = batch(accountDefault)
        expect(resolveMode({ ...request, video, upload_id: upload }, context)).toEqual(
          resolveMode({ ...request, video: undefined, upload_id: undefined }, context)
        )
      }),
      runs
    )
  })
})

describe("POST /transcribe rules", () => {
  it("rule 1: video is required unless upload_id is set, and not both", () => {
    expect(err({}, transcribe()).field).toBe("video")
    expect(err({ video: "  " }, transcribe()).field).toBe("video")
    expect(err({ video: "dQw4w9WgXcQ", upload_id: "u1", webhook_url: hook }, transcribe()).field).toBe(
      "upload_id"
    )
    expect(ok({ video: "dQw4w9WgXcQ" }, transcribe()).input).toBe("video")
  })

  it("rule 2: an upload forces ASR, takes only speech_to_text_only or source=asr, and needs a webhook", () => {
    const upload = { upload_id: "u1", webhook_url: hook }
    expect(ok(upload, transcribe("captions_only"))).toMatchObject({
      mode: "speech_to_text_only",
      asr: "consented",
      origin: "upload",
      input: "upload",
      webhookUrl: hook
    })
    expect(ok({ ...upload, mode: "speech_to_text_only" }, transcribe()).origin).toBe("mode")
    expect(ok({ ...upload, source: "asr" }, transcribe()).origin).toBe("legacy")
    expect(ok({ ...upload, allow_asr: false }, transcribe()).mode).toBe("speech_to_text_only")
    expect(err({ ...upload, mode: "auto" }, transcribe()).field).toBe("mode")
    expect(err({ ...upload, mode: "captions_only" }, transcribe()).field).toBe("mode")
    expect(err({ ...upload, source: "auto" }, transcribe()).field).toBe("source")
    expect(err({ ...upload, source: "manual" }, transcribe()).field).toBe("source")
    expect(err({ upload_id: "u1" }, transcribe()).field).toBe("webhook_url")
    expect(err({ upload_id: "u1", webhook_url: "not a url" }, transcribe()).field).toBe("webhook_url")
  })

  it("rule 3: mode cannot be combined with source or allow_asr, even their default values", () => {
    expect(err({ video: "dQw4w9WgXcQ", mode: "auto", source: "auto" }, transcribe()).field).toBe("source")
    expect(err({ video: "dQw4w9WgXcQ", mode: "captions_only", allow_asr: false }, transcribe()).field).toBe(
      "allow_asr"
    )
  })

  it("rule 4: without mode and legacy fields the account default applies; an ASR default needs confirmation", () => {
    expect(ok({ video: "dQw4w9WgXcQ" }, transcribe("captions_only"))).toMatchObject({
      mode: "captions_only",
      asr: "never",
      origin: "default"
    })
    expect(ok({ video: "dQw4w9WgXcQ" }, transcribe("auto"))).toMatchObject({
      mode: "auto",
      asr: "needs_confirmation",
      origin: "default",
      webhookUrl: undefined
    })
    expect(ok({ video: "dQw4w9WgXcQ", webhook_url: hook }, transcribe("speech_to_text_only"))).toMatchObject({
      mode: "speech_to_text_only",
      asr: "needs_confirmation",
      webhookUrl: hook
    })
  })

  it("rule 5: with mode the webhook is optional; legacy ASR requires it; captions modes ignore it", () => {
    expect(ok({ video: "dQw4w9WgXcQ", mode: "auto" }, transcribe())).toMatchObject({
      mode: "auto",
      asr: "consented",
      origin: "mode",
      webhookUrl: undefined
    })
    expect(
      ok({ video: "dQw4w9WgXcQ", mode: "speech_to_text_only", webhook_url: ` ${hook} ` }, transcribe())
    ).toMatchObject({ asr: "consented", webhookUrl: hook })
    expect(
      err({ video: "dQw4w9WgXcQ", mode: "auto", webhook_url: "ftp://x.org/a" }, transcribe()).field
    ).toBe("webhook_url")
    expect(err({ video: "dQw4w9WgXcQ", source: "asr" }, transcribe()).field).toBe("webhook_url")
    expect(err({ video: "dQw4w9WgXcQ", allow_asr: true }, transcribe()).field).toBe("webhook_url")
    expect(
      ok({ video: "dQw4w9WgXcQ", mode: "captions_only", webhook_url: "not a url" }, transcribe()).webhookUrl
    ).toBeUndefined()
    expect(
      ok({ video: "dQw4w9WgXcQ", mode: "human_captions_only", webhook_url: hook }, transcribe()).webhookUrl
    ).toBeUndefined()
  })

  it("legacy fields map to modes: source=auto is captions only, with allow_asr=true captions with ASR fallback", () => {
    const video = { video: "dQw4w9WgXcQ", webhook_url: hook }
    expect(ok({ ...video, source: "auto" }, transcribe("auto")).mode).toBe("captions_only")
    expect(ok({ ...video, allow_asr: false }, transcribe("auto")).mode).toBe("captions_only")
    expect(ok({ ...video, allow_asr: true }, transcribe())).toMatchObject({ mode: "auto", asr: "consented" })
    expect(ok({ ...video, source: "auto", allow_asr: true }, transcribe()).mode).toBe("auto")
    expect(ok({ ...video, source: "manual" }, transcribe()).mode).toBe("human_captions_only")
    expect(ok({ ...video, source: "asr" }, transcribe())).toMatchObject({
      mode: "speech_to_text_only",
      asr: "consented",
      origin: "legacy"
    })
    expect(ok({ ...video, source: "asr", allow_asr: false }, transcribe()).mode).toBe("speech_to_text_only")
  })

  it("legacy source=manual with allow_asr=true: human captions, else speech recognition (consent, webhook required)", () => {
    const pair = { video: "dQw4w9WgXcQ", source: "manual", allow_asr: true } as const
    expect(ok({ ...pair, webhook_url: hook }, transcribe())).toMatchObject({
      mode: "auto",
      asr: "consented",
      origin: "legacy",
      humanCaptionsOnly: true,
      webhookUrl: hook
    })
    expect(err(pair, transcribe()).field).toBe("webhook_url")
    expect(ok({ mode: "auto", video: pair.video }, transcribe()).humanCaptionsOnly).toBe(false)
    expect(ok({ mode: "human_captions_only", video: pair.video }, transcribe()).humanCaptionsOnly).toBe(true)
    expect(ok({ source: "manual", allow_asr: true, webhook_url: hook }, batch()).humanCaptionsOnly).toBe(true)
  })
})

describe("POST /batch rules", () => {
  it("rule 2: mode=auto and speech_to_text_only require webhook_url, captions modes do not", () => {
    expect(err({ mode: "auto" }, batch()).field).toBe("webhook_url")
    expect(err({ mode: "speech_to_text_only", webhook_url: " " }, batch()).field).toBe("webhook_url")
    expect(ok({ mode: "auto", webhook_url: hook }, batch())).toMatchObject({
      asr: "consented",
      webhookUrl: hook
    })
    expect(ok({ mode: "captions_only" }, batch()).asr).toBe("never")
    expect(ok({ mode: "human_captions_only", webhook_url: "nonsense" }, batch()).webhookUrl).toBeUndefined()
  })

  it("rule 2: legacy allow_asr=true and source=asr require webhook_url", () => {
    expect(err({ allow_asr: true }, batch()).field).toBe("webhook_url")
    expect(err({ source: "asr" }, batch()).field).toBe("webhook_url")
    expect(ok({ source: "asr", webhook_url: hook }, batch()).mode).toBe("speech_to_text_only")
    expect(ok({ source: "manual" }, batch()).mode).toBe("human_captions_only")
  })

  it("rule 3: an ASR default applies only with webhook_url, and still needs confirmation", () => {
    expect(ok({}, batch("auto"))).toMatchObject({
      mode: "captions_only",
      asr: "never",
      origin: "default",
      downgradedFrom: "auto"
    })
    expect(ok({}, batch("speech_to_text_only")).downgradedFrom).toBe("speech_to_text_only")
    expect(ok({ webhook_url: hook }, batch("auto"))).toMatchObject({
      mode: "auto",
      asr: "needs_confirmation",
      webhookUrl: hook
    })
    expect(err({ webhook_url: "not a url" }, batch("auto")).field).toBe("webhook_url")
    expect(ok({ webhook_url: "not a url" }, batch("human_captions_only")).mode).toBe("human_captions_only")
  })

  it("mode cannot be combined with legacy fields in a batch either", () => {
    expect(err({ mode: "auto", allow_asr: true, webhook_url: hook }, batch()).field).toBe("allow_asr")
  })

  it("any valid webhook is accepted where it is used", () => {
    fc.assert(
      fc.property(validWebhook, (url) => {
        expect(ok({ mode: "auto", webhook_url: url }, batch()).webhookUrl).toBe(url)
      }),
      runs
    )
  })
})
