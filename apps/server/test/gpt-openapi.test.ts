/**
 * GET /api/v2/gpt/openapi.json on the production wiring: served without a key, its server the
 * service's absolute URL (core's ServiceUrl, the runtime's), its operations those an assistant needs.
 */
import { expect, layer } from "@effect/vitest"
import { gptOpenApiPath } from "@verbatim/api"
import { Effect } from "effect"
import { TestServer, TestServerLive } from "./server.js"

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "60 seconds", excludeTestServices: true })("GPT Actions document", (it) => {
  it.effect("is served without a key, pointing at the service's URL", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const response = yield* server.get(gptOpenApiPath)
      expect(response.status).toBe(200)
      const document = response.json as {
        servers: ReadonlyArray<{ url: string }>
        paths: Record<string, Record<string, { operationId: string }>>
      }
      expect(document.servers).toEqual([{ url: `${server.baseUrl}/api/v2/gpt`, description: "Verbatim" }])
      const ids = Object.values(document.paths).flatMap((item) =>
        Object.values(item).map((op) => op.operationId)
      )
      expect(ids.sort()).toEqual(
        [
          "createBatch",
          "estimateCost",
          "getBatch",
          "getCredits",
          "getJob",
          "getRecommendedVideos",
          "getTranscript",
          "getThemes",
          "getTranscriptLanguages",
          "getVideoInfo",
          "listTranscripts",
          "readTranscript",
          "resolveChannel",
          "resolvePlaylist",
          "transcribeVideo",
          "unlockThemes",
          "translateTranscript"
        ].sort()
      )
    })
  )
})
