/**
 * The speech recognition walk-through of docs/guide.md against `pnpm start` as a real process (demo
 * platform, embedded database, in-memory queue, the embedded worker and pocketsphinx): a captionless
 * demo video transcribed from its audio, then a WAV uploaded (register, PUT to `signed_url`,
 * complete) and transcribed with `upload_id`, each polled with `GET /jobs/{job_id}` until it is
 * done. The other suites build the server from layers; only a real process runs `main.ts`'s own
 * wiring of the embedded worker.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Detection, detectWith, PocketsphinxConfig } from "@verbatim/pocketsphinx"
import { Effect } from "effect"
import { freePort, printedKey, repositoryRoot, startServer } from "./server-process.js"

const installed = Detection.$is("Installed")(
  await Effect.runPromise(Effect.flatMap(PocketsphinxConfig, detectWith))
)

interface Answer {
  readonly status: number
  readonly json: Record<string, unknown>
}

const call = async (url: string, init: RequestInit & { readonly key?: string } = {}): Promise<Answer> => {
  const headers = new Headers(init.headers)
  if (init.key !== undefined) headers.set("authorization", `Bearer ${init.key}`)
  const response = await fetch(url, { ...init, headers })
  return { status: response.status, json: (await response.json()) as Record<string, unknown> }
}

/**
 * Polls the job as the guide does: 202 while it runs, then 200 with the finished job. Gives up
 * after `patienceMs` (a job never claimed), so the test fails with the server's output and still
 * stops the server.
 */
const finished = async (api: string, key: string, jobId: string, query = "", patienceMs = 90_000) => {
  const giveUpAt = Date.now() + patienceMs
  for (;;) {
    const answer = await call(`${api}/jobs/${jobId}${query}`, { key })
    if (answer.status !== 202) return answer
    expect(answer.json).toMatchObject({ status: "processing" })
    if (Date.now() > giveUpAt) return answer
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

// CI installs the engine (scripts/install-speech.sh), so there the suite always runs.
describe.runIf(installed || process.env.CI === "true")("the guide's ASR flow on `pnpm start`", () => {
  it("a captionless demo video and an uploaded WAV are transcribed by the embedded worker", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "verbatim-asr-process-"))
    const port = await freePort()
    const server = startServer({
      VERBATIM_DATA_DIR: dataDir,
      PORT: String(port),
      VERBATIM_ASR: "auto",
      VERBATIM_WEBHOOK_ALLOWED_HOSTS: "localhost:9000"
    })
    try {
      const output = await server.waitFor(/Seeded a development account[\s\S]*vbt_/, 90_000)
      const key = printedKey(output)
      if (key === undefined) return expect.unreachable(`no key printed:\n${output}`)
      // The port asked for (the "Listening on" log line may come after the seed's output).
      const api = `http://127.0.0.1:${port}/api/v2`

      // A demo video without captions, transcribed from its audio (1 credit).
      const video = await call(`${api}/transcribe`, {
        key,
        method: "POST",
        body: JSON.stringify({ video: "Wv5SpkDmo1A", mode: "speech_to_text_only" })
      })
      expect(video.status, JSON.stringify(video.json)).toBe(202)
      expect(video.json).toMatchObject({ status: "processing", estimated_credits: 1 })
      const videoJob = await finished(api, key, String(video.json.job_id), "?include_words=true")
      expect(videoJob.status, `${JSON.stringify(videoJob.json)}\n${server.output()}`).toBe(200)
      expect(videoJob.json).toMatchObject({
        status: "completed",
        credits_used: 1,
        data: { video_id: "Wv5SpkDmo1A", transcript: { source: "asr", language: "en" } }
      })
      const heard = JSON.stringify(videoJob.json).toLowerCase()
      for (const word of ["welcome", "speech", "recognition", "computer"]) expect(heard).toContain(word)

      // An upload: register it, PUT the bytes to signed_url with their Content-Type, complete, transcribe.
      const file = readFileSync(join(repositoryRoot, "packages/demo-platform/media/library.wav"))
      const upload = await call(`${api}/uploads`, {
        key,
        method: "POST",
        body: JSON.stringify({
          filename: "library.wav",
          mime_type: "audio/wav",
          size_bytes: file.length,
          duration_sec: 6
        })
      })
      expect(upload.status, JSON.stringify(upload.json)).toBe(200)
      const uploadId = String(upload.json.upload_id)
      const stored = await fetch(String(upload.json.signed_url), {
        method: "PUT",
        headers: { "content-type": "audio/wav" },
        body: file
      })
      expect(stored.status).toBe(200)
      const complete = await call(`${api}/uploads/${uploadId}/complete`, { key, method: "POST" })
      expect(complete).toMatchObject({ status: 200, json: { status: "uploaded", duration_sec: 6 } })
      const started = await call(`${api}/transcribe`, {
        key,
        method: "POST",
        body: JSON.stringify({ upload_id: uploadId, webhook_url: "http://localhost:9000/hook" })
      })
      expect(started.status, JSON.stringify(started.json)).toBe(202)
      const uploadJob = await finished(api, key, String(started.json.job_id))
      expect(uploadJob.status, `${JSON.stringify(uploadJob.json)}\n${server.output()}`).toBe(200)
      expect(uploadJob.json).toMatchObject({
        status: "completed",
        credits_used: 1,
        data: { video_id: uploadId, transcript: { source: "asr" } }
      })
      expect(JSON.stringify(uploadJob.json).toLowerCase()).toContain("library")
      const credits = await call(`${api}/credits`, { key })
      expect(credits.json).toMatchObject({ credits: 998 })
    } finally {
      server.child.kill("SIGTERM")
      await server.exited
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 180_000)
})
