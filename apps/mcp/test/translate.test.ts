/**
 * translate_transcript over Streamable HTTP, the in-process operations and the REST operations, the
 * AI engine on the local stand-in Responses API: the priced credits once, the translation stored
 * (get_transcript reads it in the target language), a repeat free, and the refusals with the API's
 * codes (unsupported_language without a provider that can, not_found for a video not owned); the
 * best transcript stays the original, the translation named as one (`translated_from`).
 */
import { expect, layer } from "@effect/vitest"
import { AiTranslator } from "@verbatim/llm"
import { layerWithStandIn, translating } from "@verbatim/llm/testing"
import { Effect, Layer } from "effect"
import { TestServer, type TestServerService, testServerOn } from "../../server/test/server.js"
import { balanceOf, transcribe, videos } from "../../server/test/support.js"
import { type Connected, call, callFailing, onEveryTransport } from "./support.js"

const tour = (server: TestServerService, mcp: Connected, key: string) =>
  Effect.gen(function* () {
    expect((yield* transcribe(server, key, { video: videos.manualOnly, mode: "captions_only" })).status).toBe(
      200
    )
    expect(yield* balanceOf(server, key)).toBe(2)

    const translated = yield* call(mcp, "translate_transcript", {
      video_id: videos.manualOnly,
      target_language: "es",
      provider: "ai"
    })
    expect(translated.structured).toMatchObject({
      video_id: videos.manualOnly,
      language: "es",
      translated_from: "en",
      credits_used: 1,
      provider_used: "ai"
    })
    expect(translated.structured.next_step).toContain("get_transcript")
    expect(yield* balanceOf(server, key)).toBe(1)

    const read = yield* call(mcp, "get_transcript", { video_id: videos.manualOnly, language: "es" })
    const segments = read.structured.segments as ReadonlyArray<{ readonly text: string }>
    expect(segments.length).toBe(translated.structured.segment_count)
    expect(segments.every((s) => s.text.startsWith("[es] "))).toBe(true)

    // Provenance: the best transcript is the original; the translation says what it is.
    expect(read.structured.translated_from).toBe("en")
    const readText = read.result.content[0]
    expect(readText?.type === "text" ? readText.text : "").toContain("machine translation of en")
    const best = yield* call(mcp, "get_transcript", { video_id: videos.manualOnly })
    expect(best.structured).toMatchObject({ language: "en", translated_from: null })
    const resources = yield* Effect.promise(() => mcp.client.listResources())
    const descriptions = resources.resources
      .filter((r) => r.uri.includes(videos.manualOnly))
      .map((r) => r.description ?? "")
    expect(descriptions.some((d) => d.startsWith("machine translation of en into es"))).toBe(true)
    expect(descriptions.some((d) => d.startsWith("manual transcript in en"))).toBe(true)

    const again = yield* call(mcp, "translate_transcript", {
      video_id: videos.manualOnly,
      target_language: "es"
    })
    expect(again.structured).toMatchObject({ credits_used: 0, provider_used: null })
    expect(yield* balanceOf(server, key)).toBe(1)

    const platformOnly = yield* callFailing(mcp, "translate_transcript", {
      video_id: videos.manualOnly,
      target_language: "ko"
    })
    expect(platformOnly.error).toBe("unsupported_language")
    const notOwned = yield* callFailing(mcp, "translate_transcript", {
      video_id: videos.germanOnly,
      target_language: "en",
      provider: "ai"
    })
    expect(notOwned.error).toBe("not_found")
    expect(yield* balanceOf(server, key)).toBe(1)
  })

const model = layerWithStandIn({ respond: translating() })
const server = testServerOn({ translator: AiTranslator.layer.pipe(Layer.provide(model)) })

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(server, { timeout: 60_000, excludeTestServices: true })("translate_transcript", (it) => {
  it.effect(
    "over Streamable HTTP, in process and over REST",
    () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        yield* onEveryTransport(server, 3, (mcp, key) => tour(server, mcp, key))
      }),
    60_000
  )
})
