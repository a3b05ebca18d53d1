/**
 * Disks that fail: a signed PUT into an upload folder that fills up answers 507
 * `insufficient_storage` with the error body, and one into a folder that refuses writes (read-only)
 * answers 503 `storage_unavailable`, never a reset or a bare 500; nothing of the refused upload is
 * kept, and once there is room again the same upload is taken. The folder is a small tmpfs mounted
 * for the test, so the suite runs only where it may mount one (root on Linux, as in CI).
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it, layer } from "@effect/vitest"
import { Api } from "@verbatim/domain"
import { Effect, Schema } from "effect"
import { TestServer, testServerOn } from "./server.js"
import { freePort, listeningUrl, printedKey, startServer } from "./server-process.js"
import { api, expectError } from "./support.js"

/** A 256 KiB tmpfs at a fresh folder, or none when this process may not mount one. */
const mountSmallFolder = (): string | undefined => {
  if (process.platform !== "linux" || process.getuid?.() !== 0) return undefined
  const folder = mkdtempSync(join(tmpdir(), "verbatim-full-"))
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", folder], { stdio: "ignore" })
    return folder
  } catch {
    rmSync(folder, { recursive: true, force: true })
    return undefined
  }
}

const folder = mountSmallFolder()

const remount = (options: string) => {
  if (folder !== undefined) execFileSync("mount", ["-o", `remount,${options}`, folder], { stdio: "ignore" })
}

/** Every file under the folder, with its size. */
const filesUnder = (root: string): ReadonlyArray<{ readonly path: string; readonly size: number }> =>
  readdirSync(root, { recursive: true, encoding: "utf8" })
    .map((name) => join(root, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => ({ path, size: statSync(path).size }))

/** A PUT of `size` bytes, its answer read whatever happens to the rest of the body. */
const put = (url: string, size: number) =>
  Effect.async<{ status: number; body: unknown; headers: Record<string, unknown> }>((resume) => {
    let answered = false
    const out = request(url, {
      method: "PUT",
      headers: { "content-type": "audio/wav", "content-length": String(size) }
    })
    out.on("response", (response) => {
      answered = true
      let text = ""
      response.on("data", (chunk: Buffer) => {
        text += chunk.toString("utf8")
      })
      response.on("end", () => {
        out.destroy()
        resume(
          Effect.succeed({
            status: response.statusCode ?? 0,
            body: JSON.parse(text),
            headers: response.headers
          })
        )
      })
    })
    // The server stops reading a refused body: writing the rest may fail once it has answered.
    out.on("error", (error) => {
      if (!answered) resume(Effect.die(error))
    })
    out.end(new Uint8Array(size).fill(7))
    return Effect.sync(() => out.destroy())
  })

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(testServerOn({ blobRoot: folder }), { timeout: "60 seconds", excludeTestServices: true })(
  "upload storage that fails",
  (it) => {
    it.scoped.skipIf(folder === undefined)(
      "a full folder answers 507 insufficient_storage and keeps nothing; a read-only one answers 503",
      () =>
        Effect.gen(function* () {
          const root = folder ?? ""
          yield* Effect.addFinalizer(() =>
            Effect.sync(() => {
              execFileSync("umount", ["-l", root], { stdio: "ignore" })
              rmSync(root, { recursive: true, force: true })
            })
          )
          const server = yield* TestServer
          const { key } = yield* server.newAccount()
          const register = (size: number) =>
            Effect.map(
              server.post(api("/uploads"), {
                key,
                json: { filename: "big.wav", mime_type: "audio/wav", size_bytes: size, duration_sec: 10 }
              }),
              (created) => {
                expect(created.status, created.text).toBe(200)
                return Schema.decodeUnknownSync(Api.UploadCreateResponse)(created.json)
              }
            )

          // 1 MiB into 256 KiB: ENOSPC part way.
          const big = yield* register(1024 * 1024)
          const full = yield* put(big.signed_url, 1024 * 1024)
          expect(full.status).toBe(507)
          expect(full.body).toEqual({
            error: "insufficient_storage",
            message: expect.stringContaining("full"),
            details: { retry_after_seconds: expect.any(Number) }
          })
          expect(full.headers["retry-after"]).toBeDefined()
          // Nothing kept: no partial file fills the folder, and the upload cannot be completed.
          expect(filesUnder(root).reduce((sum, file) => sum + file.size, 0)).toBeLessThan(4096)
          expectError(
            yield* server.post(api(`/uploads/${big.upload_id}/complete`), { key }),
            400,
            "invalid_request"
          )

          // Room for a small one: taken.
          const small = yield* register(64 * 1024)
          expect((yield* put(small.signed_url, 64 * 1024)).status).toBe(200)
          expect((yield* server.post(api(`/uploads/${small.upload_id}/complete`), { key })).status).toBe(200)

          // A folder that refuses writes: 503 storage_unavailable, not naming the server's paths.
          const refused = yield* register(1024)
          remount("ro")
          const readOnly = yield* put(refused.signed_url, 1024).pipe(
            Effect.ensuring(Effect.sync(() => remount("rw")))
          )
          expect(readOnly.status).toBe(503)
          expect(readOnly.body).toEqual({
            error: "storage_unavailable",
            message: expect.not.stringContaining(root),
            details: { retry_after_seconds: expect.any(Number) }
          })
          // Writable again: the same upload is taken.
          expect((yield* put(refused.signed_url, 1024)).status).toBe(200)
        })
    )
  }
)

/**
 * The embedded database's folder full (`VERBATIM_DATA_DIR` on a 64 MiB tmpfs, filled to the last
 * block): writes answer 507 `insufficient_storage` with the error body, never 500, the log names
 * the database file it could not extend, and once there is room again the same request is taken.
 */
describe("the embedded database's folder full", () => {
  it.skipIf(folder === undefined)(
    "answers 507 insufficient_storage, logs the file, and heals when space is freed",
    async () => {
      const data = mkdtempSync(join(tmpdir(), "verbatim-data-full-"))
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=64m", "tmpfs", data], { stdio: "ignore" })
      const server = startServer({ VERBATIM_DATA_DIR: data, PORT: String(await freePort()) })
      try {
        const output = await server.waitFor(/Listening on http/, 90_000)
        const base = `${listeningUrl(output)}/api/v2`
        const key = printedKey(await server.waitFor(/vbt_/, 30_000)) ?? ""
        const register = (n: number) =>
          fetch(`${base}/uploads`, {
            method: "POST",
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
            body: JSON.stringify({
              filename: `${"x".repeat(200)}-${n}.wav`,
              mime_type: "audio/wav",
              size_bytes: 1000,
              duration_sec: 1
            })
          })
        expect((await register(0)).status).toBe(200)
        // Fill the folder to its last block.
        try {
          execFileSync("dd", ["if=/dev/zero", `of=${join(data, "filler")}`, "bs=64k"], { stdio: "ignore" })
        } catch {
          // dd ends with "No space left on device": the folder is full.
        }
        const statuses: Array<number> = []
        let refused: { status: number; body: unknown } | undefined
        for (let n = 1; n <= 150 && refused === undefined; n++) {
          const response = await register(n)
          statuses.push(response.status)
          if (response.status !== 200) refused = { status: response.status, body: await response.json() }
        }
        expect(refused, `statuses: ${statuses.join(" ")}`).toEqual({
          status: 507,
          body: {
            error: "insufficient_storage",
            message: expect.stringContaining("full"),
            details: { retry_after_seconds: expect.any(Number) }
          }
        })
        await server.waitFor(/database storage full in Uploads\.insert.*No space left on device/, 10_000)
        rmSync(join(data, "filler"))
        expect((await register(1_000)).status).toBe(200)
      } finally {
        server.child.kill("SIGKILL")
        await server.exited
        execFileSync("umount", ["-l", data], { stdio: "ignore" })
        rmSync(data, { recursive: true, force: true })
      }
    },
    180_000
  )
})
