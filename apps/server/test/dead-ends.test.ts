/**
 * No dead ends: every question, refusal and next_step an assistant gets names a call that succeeds
 * as sent (with what the question says to add), over REST and the MCP SDK client (Streamable HTTP).
 */
import { describe, expect, layer } from "@effect/vitest"
import { AssemblyAiStandIn, standInEngine } from "@verbatim/assemblyai/testing"
import { eventually } from "@verbatim/runtime/testing"
import { Effect, Layer, Option } from "effect"
import { call, callFailing, httpClient } from "../../mcp/test/support.js"
import { webhookReceiver } from "./receiver.js"
import { TestServer, testServerOn } from "./server.js"
import { api, oldAccount, videos } from "./support.js"

/** A demo video with speech (a media file) and no captions. */
const welcome = "Wv5SpkDmo1A"

const serverWith = Layer.unwrapEffect(
  Effect.map(AssemblyAiStandIn, (standIn) => testServerOn({ speech: standInEngine(standIn) }))
).pipe(
  Layer.provideMerge(AssemblyAiStandIn.layer({ recognise: () => "Welcome to Verbatim.", pollsUntilDone: 1 }))
)

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(serverWith, { timeout: 180_000, excludeTestServices: true })("no dead ends", (it) => {
  describe("questions and next steps name calls that succeed", () => {
    it.scoped(
      "run_batch's ASR question says a webhook_url is required; its confirm_arguments, the placeholder filled, start the batch",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const hook = yield* webhookReceiver()
          const { key } = yield* server.newAccount({ plan: "pro", credits: 50, createdAt: oldAccount })
          const mcp = yield* httpClient(server.baseUrl, key)
          const asked = yield* call(mcp, "run_batch", { video_ids: [welcome], mode: "auto" })
          expect(asked.structured.status).toBe("requires_asr_confirmation")
          const question = asked.structured.question as string
          expect(question).toContain("requires a webhook_url")
          expect(question).toContain("transcribe_video")
          const confirm = asked.structured.confirm_arguments as { [key: string]: unknown }
          expect(question).toContain(String(confirm.webhook_url))
          // Unfilled, the refusal names webhook_url; filled as the question says, it starts.
          const unfilled = yield* callFailing(mcp, "run_batch", confirm)
          expect(unfilled.error).toBe("invalid_request")
          expect(JSON.stringify(unfilled)).toContain("webhook_url")
          const filled = yield* call(mcp, "run_batch", { ...confirm, webhook_url: hook.url })
          expect(filled.structured.status).toBe("processing")
        }),
      180_000
    )

    it.scoped("get_video_info on a video longer than ASR takes, without captions: too long, stop", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.newAccount({ plan: "pro", credits: 50, createdAt: oldAccount })
        const mcp = yield* httpClient(server.baseUrl, key)
        const info = yield* call(mcp, "get_video_info", { video: videos.veryLong })
        expect(info.structured.exceeds_max_duration).toBe(true)
        const step = info.structured.next_step as string
        expect(step).toContain("too long")
        expect(step).toContain("stop")
        expect(step).not.toContain("confirm_asr")
      })
    )

    it.scoped(
      "the ASR quote of an account whose default is ASR states the price in words and says to ask the user",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "pro", credits: 50, defaultMode: "auto" })
          const quoted = yield* server.post(api("/transcribe"), { key, json: { video: welcome } })
          expect(quoted.status, quoted.text).toBe(200)
          const body = quoted.json as { status: string; estimated_credits: number; suggestion: string }
          expect(body.status).toBe("requires_asr_confirmation")
          expect(body.suggestion).toContain(`cost ${body.estimated_credits} credit`)
          expect(body.suggestion).toContain("Ask the user")
          // Sent again as it says, with mode=auto: speech recognition starts.
          const sent = yield* server.post(api("/transcribe"), { key, json: { video: welcome, mode: "auto" } })
          expect(sent.status, sent.text).toBe(202)
        })
    )

    it.scoped(
      "an ASR re-run with new asr_options when the transcript is owned says what was served, on REST and MCP",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.newAccount({ plan: "pro", credits: 50, createdAt: oldAccount })
          const first = yield* server.post(api("/transcribe"), {
            key,
            json: { video: welcome, mode: "auto" }
          })
          expect(first.status, first.text).toBe(202)
          const jobId = (first.json as { job_id: string }).job_id
          yield* eventually(
            "the ASR job to finish",
            Effect.map(server.get(api(`/jobs/${jobId}`), { key }), (job) =>
              job.status === 202 ? Option.none() : Option.some(job)
            )
          )
          const again = yield* server.post(api("/transcribe"), {
            key,
            json: { video: welcome, mode: "auto", asr_options: { speakerLabels: true } }
          })
          expect(again.status, again.text).toBe(200)
          const body = again.json as { credits_used: number; note?: string }
          expect(body.credits_used).toBe(0)
          expect(body.note).toContain("speakerLabels")
          expect(body.note).toContain("not applied")
          expect(body.note).toContain("0 credits")
          // Without options, the owned transcript is served as before, with no note.
          const plain = yield* server.post(api("/transcribe"), {
            key,
            json: { video: welcome, mode: "auto" }
          })
          expect((plain.json as { note?: string }).note).toBeUndefined()

          const mcp = yield* httpClient(server.baseUrl, key)
          const viaMcp = yield* call(mcp, "transcribe_video", {
            video: welcome,
            mode: "auto",
            confirm_asr: true,
            asr_options: { speakerLabels: true }
          })
          expect(viaMcp.structured.credits_used).toBe(0)
          expect(viaMcp.structured.note).toContain("not applied")
          const text = viaMcp.result.content[0]
          expect(text?.type === "text" ? text.text : "").toContain("not applied")
        }),
      180_000
    )
  })
})
