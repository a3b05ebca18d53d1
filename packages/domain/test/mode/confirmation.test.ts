import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import { decideStep, needsAsr } from "../../src/mode/confirmation.js"
import { type ModeContext, type ModeRequest, type ResolvedMode, resolveMode } from "../../src/mode/resolve.js"
import { modeContext, modeRequest } from "./arbitraries.js"

/** Resolved modes as resolution produces them (a ResolvedMode is only ever made by resolveMode). */
const resolvedMode: fc.Arbitrary<ResolvedMode> = fc
  .tuple(modeRequest, modeContext)
  .map(([request, context]) => resolveMode(request, context))
  .filter(Either.isRight)
  .map((result) => result.right)

const resolve = (request: ModeRequest, context: ModeContext): ResolvedMode =>
  Either.getOrThrow(resolveMode(request, context))

const runs = { numRuns: 500 }

describe("decideStep laws", () => {
  it("never starts ASR under captions_only or human_captions_only", () => {
    fc.assert(
      fc.property(resolvedMode, fc.boolean(), (resolved, captions) => {
        if (resolved.mode === "captions_only" || resolved.mode === "human_captions_only") {
          const step = decideStep(resolved, captions)
          expect(step).toBe(captions ? "serve_captions" : "no_captions")
        }
      }),
      runs
    )
  })

  it("starts ASR only with consent, and asks only for an account default", () => {
    fc.assert(
      fc.property(resolvedMode, fc.boolean(), (resolved, captions) => {
        const step = decideStep(resolved, captions)
        if (step === "start_asr") expect(resolved.asr).toBe("consented")
        if (step === "requires_asr_confirmation") {
          expect(resolved.asr).toBe("needs_confirmation")
          expect(resolved.origin).toBe("default")
        }
      }),
      runs
    )
  })

  it("an upload always goes to ASR", () => {
    fc.assert(
      fc.property(resolvedMode, fc.boolean(), (resolved, captions) => {
        if (resolved.input === "upload") expect(decideStep(resolved, captions)).toBe("start_asr")
      }),
      runs
    )
  })

  it("captions are served when they exist and ASR is not needed; ASR is needed exactly when the mode calls for it", () => {
    fc.assert(
      fc.property(resolvedMode, fc.boolean(), (resolved, captions) => {
        const step = decideStep(resolved, captions)
        const asrStep = step === "start_asr" || step === "requires_asr_confirmation"
        expect(asrStep).toBe(needsAsr(resolved, captions) && resolved.asrPermitted)
        if (!needsAsr(resolved, captions)) expect(step).toBe(captions ? "serve_captions" : "no_captions")
      }),
      runs
    )
  })
})

describe("decideStep examples", () => {
  const video = "dQw4w9WgXcQ"
  const hook = "https://example.com/hook"

  it("auto serves captions when they exist and falls back to ASR otherwise", () => {
    const explicit = resolve({ video, mode: "auto" }, { kind: "transcribe", accountDefault: "captions_only" })
    expect(decideStep(explicit, true)).toBe("serve_captions")
    expect(decideStep(explicit, false)).toBe("start_asr")
  })

  it("an implicit auto default asks for confirmation instead of starting ASR (DESIGN decision 1)", () => {
    const implicit = resolve({ video }, { kind: "transcribe", accountDefault: "auto" })
    expect(decideStep(implicit, true)).toBe("serve_captions")
    expect(decideStep(implicit, false)).toBe("requires_asr_confirmation")
  })

  it("speech_to_text_only transcribes the audio even when captions exist", () => {
    const stt = resolve(
      { video, source: "asr", webhook_url: hook },
      { kind: "batch", accountDefault: "auto" }
    )
    expect(decideStep(stt, true)).toBe("start_asr")
    const implicit = resolve({ video }, { kind: "transcribe", accountDefault: "speech_to_text_only" })
    expect(decideStep(implicit, true)).toBe("requires_asr_confirmation")
  })

  it("a captions mode without captions answers no_captions", () => {
    const human = resolve({ video, source: "manual" }, { kind: "transcribe", accountDefault: "auto" })
    expect(decideStep(human, false)).toBe("no_captions")
    const downgraded = resolve({}, { kind: "batch", accountDefault: "auto" })
    expect(decideStep(downgraded, false)).toBe("no_captions")
  })
})
