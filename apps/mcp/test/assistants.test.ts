/**
 * What an assistant meets, through the SDK client over Streamable HTTP and over the
 * REST API: a free look at a video before paying (get_video_info, GET /videos/info), the
 * estimate without mode pricing what the account's default would do, questions and prices in a
 * person's words, and every refusal naming the tool and argument that would succeed.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, layer } from "@effect/vitest"
import { shippedCataloguePath } from "@verbatim/demo-platform"
import { demoPlatform } from "@verbatim/runtime"
import { Effect } from "effect"
import { TestServer, testServerOn } from "../../server/test/server.js"
import { videos } from "../../server/test/support.js"
import { call, callFailing, httpClient } from "./support.js"

/** 40 seconds without captions: speech recognition of it costs 1 credit. */
const shortSilent = "ShortNoCap1"

const catalogueFile = (): string => {
  const catalogue = JSON.parse(readFileSync(shippedCataloguePath, "utf8")) as {
    videos: Array<{ [key: string]: unknown }>
  }
  catalogue.videos = [
    ...catalogue.videos.map(({ media: _media, ...video }) => video),
    {
      id: shortSilent,
      title: "Forty Seconds",
      duration_seconds: 40,
      channel_id: catalogue.videos[0]?.channel_id,
      published_at: "2024-03-01T10:00:00Z",
      original_language: "en",
      caption_tracks: [],
      translation_languages: []
    }
  ]
  const file = join(mkdtempSync(join(tmpdir(), "verbatim-assistants-")), "catalogue.json")
  writeFileSync(file, JSON.stringify(catalogue))
  return file
}

interface Price {
  readonly mode: string
  readonly available: boolean
  readonly source: string | null
  readonly language: string | null
  readonly credits: number
  readonly owned: boolean
}

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(testServerOn({ platform: demoPlatform(catalogueFile()) }), {
  timeout: 60_000,
  excludeTestServices: true
})("assistants in the wild", (it) => {
  describe("a free look before paying", () => {
    it.scoped(
      "get_video_info and GET /videos/info: title, languages, each mode's price, owned, nothing charged",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "pro", credits: 10, defaultMode: "auto" })
          const mcp = yield* httpClient(server.baseUrl, key)

          const { structured, result } = yield* call(mcp, "get_video_info", {
            video: `https://www.youtube.com/watch?v=${videos.manualAndAuto}`
          })
          expect(structured).toMatchObject({
            video_id: videos.manualAndAuto,
            duration_seconds: 92,
            manual_caption_languages: ["en"],
            auto_caption_languages: ["en"],
            default_mode: "auto",
            owned: []
          })
          expect(typeof structured.title).toBe("string")
          const prices = structured.prices as ReadonlyArray<Price>
          expect(prices.map((price) => price.mode)).toEqual([
            "captions_only",
            "human_captions_only",
            "auto",
            "speech_to_text_only"
          ])
          expect(prices.find((price) => price.mode === "captions_only")).toMatchObject({
            source: "manual",
            language: "en",
            credits: 1,
            owned: false
          })
          expect(prices.find((price) => price.mode === "speech_to_text_only")).toMatchObject({
            source: "asr",
            available: true
          })
          const text = result.content[0]?.type === "text" ? result.content[0].text : ""
          expect(text).toContain("1 credit")
          expect(text).toContain("transcribe_video")

          // Once owned, its price is 0 and the next step is to read it.
          expect(
            (yield* server.post("/api/v2/transcribe", { key, json: { video: videos.manualAndAuto } })).status
          ).toBe(200)
          const credits = (yield* server.get("/api/v2/credits", { key })).json as { credits: number }
          const again = yield* server.get(`/api/v2/videos/info?video=${videos.manualAndAuto}`, { key })
          expect(again.status, again.text).toBe(200)
          const info = again.json as { prices: ReadonlyArray<Price>; owned: ReadonlyArray<unknown> }
          expect(info.owned).toEqual([{ language: "en", source: "manual" }])
          expect(info.prices.find((price) => price.mode === "captions_only")).toMatchObject({
            credits: 0,
            owned: true
          })
          // Looking charged nothing.
          expect(((yield* server.get("/api/v2/credits", { key })).json as { credits: number }).credits).toBe(
            credits.credits
          )

          // No captions: the caption modes are unavailable, ASR is priced.
          const silent = (yield* call(mcp, "get_video_info", { video: videos.noCaptions })).structured
          expect(
            (silent.prices as ReadonlyArray<Price>).find((p) => p.mode === "captions_only")
          ).toMatchObject({
            available: false,
            credits: 0
          })
          // A bad reference is invalid_request naming video; without a key, 401.
          expect(
            (yield* server.get("/api/v2/videos/info?video=not%20a%20video", { key })).json
          ).toMatchObject({
            error: "invalid_request"
          })
          expect((yield* server.get(`/api/v2/videos/info?video=${videos.manualAndAuto}`)).status).toBe(401)
        })
    )

    it.scoped(
      "estimate_cost without mode prices what the account's default mode would do: captions for a captioned video",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "pro", credits: 10, defaultMode: "auto" })
          const mcp = yield* httpClient(server.baseUrl, key)
          const captioned = (yield* call(mcp, "estimate_cost", { video: videos.manualAndAuto })).structured
          expect(captioned).toMatchObject({ mode: "auto", source: "manual", estimated_credits: 1 })
          const silent = (yield* call(mcp, "estimate_cost", { video: videos.noCaptions })).structured
          expect(silent).toMatchObject({ mode: "auto", source: "asr" })
          // A captions-only default has nothing to serve without captions: the error says what to ask instead.
          const strict = yield* server.newAccount({ plan: "pro", credits: 10, defaultMode: "captions_only" })
          const refused = yield* callFailing(yield* httpClient(server.baseUrl, strict.key), "estimate_cost", {
            video: videos.noCaptions
          })
          expect(refused.error).toBe("no_captions")
          expect(refused.message).toContain("estimate_cost again with video")
          expect(refused.message).toContain('mode "speech_to_text_only"')
        })
    )
  })

  describe("words that lead to the next step", () => {
    it.scoped("the ASR question says why and counts as a person does: 1 credit, about 1 minute", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.newAccount({ plan: "pro", credits: 10 })
        const mcp = yield* httpClient(server.baseUrl, key)
        const short = (yield* call(mcp, "transcribe_video", { video: shortSilent, mode: "auto" })).structured
        expect(short.status).toBe("requires_asr_confirmation")
        expect(short.question).toContain("no usable captions")
        expect(short.question).toContain("1 credit (")
        expect(short.question).toContain("about 1 minute of audio")
        expect(short.question).not.toMatch(/1 credits|1 minutes/)
        // A captioned video asked in speech_to_text_only: no claim that it has no captions.
        const asked = (yield* call(mcp, "transcribe_video", {
          video: videos.manualAndAuto,
          mode: "speech_to_text_only"
        })).structured
        expect(asked.status).toBe("requires_asr_confirmation")
        expect(asked.question).not.toContain("no usable captions")
        expect(asked.question).toContain("speech_to_text_only")
        expect(asked.question).toContain("captions_only")
      })
    )

    it.scoped("refusals name the tool and argument that would succeed", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.newAccount({ plan: "pro", credits: 20 })
        const mcp = yield* httpClient(server.baseUrl, key)

        // A video not owned: transcribe it first.
        for (const [tool, args] of [
          ["get_transcript", { video_id: videos.multiLanguage }],
          ["transcript_languages", { video_id: videos.multiLanguage }],
          ["translate_transcript", { video_id: videos.multiLanguage, target_language: "de" }],
          ["get_themes", { video_id: videos.multiLanguage }]
        ] as const) {
          const refused = yield* callFailing(mcp, tool, args)
          expect(refused.error, tool).toBe("not_found")
          expect(refused.message, tool).toContain(`transcribe_video with video "${videos.multiLanguage}"`)
          expect(refused.details.next_step, tool).toContain("transcribe_video")
        }

        // A language not owned: translate it, or transcribe in it.
        expect(
          (yield* server.post("/api/v2/transcribe", { key, json: { video: videos.manualAndAuto } })).status
        ).toBe(200)
        const other = yield* callFailing(mcp, "get_transcript", {
          video_id: videos.manualAndAuto,
          language: "de"
        })
        expect(other.error).toBe("forbidden")
        expect(other.message).toContain(
          `translate_transcript with video_id "${videos.manualAndAuto}" and target_language "de"`
        )
        expect(other.message).toContain(
          `transcribe_video with video "${videos.manualAndAuto}" and language "de"`
        )

        // A language the platform cannot translate into: the server's machine translation.
        const unsupported = yield* callFailing(mcp, "translate_transcript", {
          video_id: videos.manualAndAuto,
          target_language: "ja",
          provider: "platform"
        })
        expect(unsupported.error).toBe("unsupported_language")
        expect(unsupported.message).toContain('provider "ai"')
        expect(unsupported.message).toContain("allow_ai_fallback true")

        // get_transcript's language no longer promises a fallback; search and list say "only".
        const listed = (yield* Effect.promise(() => mcp.client.listTools())).tools
        const language = (name: string): string => {
          const field = listed.find((tool) => tool.name === name)?.inputSchema.properties?.language as
            | { readonly description?: string }
            | undefined
          return field?.description ?? ""
        }
        expect(language("get_transcript")).not.toContain("another language is returned")
        expect(language("get_transcript")).toContain("translate_transcript")
        expect(language("search_transcripts")).toMatch(/^Only transcripts in this language/)
        expect(language("list_transcripts")).toMatch(/^Only transcripts in this language/)
        expect(language("transcribe_video")).toContain("another language is returned")
      })
    )
  })
})
