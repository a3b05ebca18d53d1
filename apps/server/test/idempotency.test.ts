/**
 * `Idempotency-Key` on POST /transcribe and POST /batch over real HTTP: a retry with the same key and
 * request returns the first answer (status and body) and charges nothing again; the same key with
 * another request is 409; concurrent retries wait for the first instead of running twice (a property
 * over random interleavings: at most one charge); a refusal is an answer and is kept too. The
 * header is declared in the contract on the four endpoints that honour it, so the typed client sends it.
 */
import { expect, layer } from "@effect/vitest"
import { idempotencyHeaders } from "@verbatim/contract"
import { AccountAdmin } from "@verbatim/core"
import { Api } from "@verbatim/domain"
import { Effect } from "effect"
import fc from "fast-check"
import { TestServer, TestServerLive, type TestServerService } from "./server.js"
import { api, balanceOf, expectError, expectInvalid, oldAccount, videos } from "./support.js"

const withKey = (
  server: TestServerService,
  key: string,
  idempotencyKey: string,
  path: string,
  json: unknown
) => server.post(api(path), { key, json, headers: { "idempotency-key": idempotencyKey } })

// Live clock: a real server on a real port, its embedded worker and database in real time (test/server.ts).
layer(TestServerLive, { timeout: "120 seconds", excludeTestServices: true })("Idempotency-Key", (it) => {
  it.effect(
    "a retry returns the first answer and charges nothing again; another request with the key is 409",
    () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.newAccount({ plan: "pro", credits: 5, createdAt: oldAccount })
        const body = { video: videos.manualAndAuto, mode: "captions_only" }
        const first = yield* withKey(server, key, "k-1", "/transcribe", body)
        expect(first.status, first.text).toBe(200)
        expect(yield* balanceOf(server, key)).toBe(4)
        // The same request again, with its keys in another order.
        const again = yield* withKey(server, key, "k-1", "/transcribe", {
          mode: "captions_only",
          video: videos.manualAndAuto
        })
        expect(again.status).toBe(200)
        expect(again.json).toEqual(first.json)
        expect(yield* balanceOf(server, key)).toBe(4)
        expectError(
          yield* withKey(server, key, "k-1", "/transcribe", {
            video: videos.multiLanguage,
            mode: "captions_only"
          }),
          409,
          "conflict"
        )
        // Keys are the account's: another account's key of the same name is its own.
        const other = yield* server.newAccount({ plan: "pro", credits: 5, createdAt: oldAccount })
        const theirs = yield* withKey(server, other.key, "k-1", "/transcribe", body)
        expect(theirs.status).toBe(200)
        expect(theirs.json).not.toEqual(first.json)
      })
  )

  it.effect("a refusal is an answer: kept for the key, even once the balance would allow the request", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const { account, key } = yield* server.newAccount({ plan: "pro", credits: 0, createdAt: oldAccount })
      const body = { video: videos.manualOnly, mode: "captions_only" }
      expectError(yield* withKey(server, key, "poor", "/transcribe", body), 402, "payment_required")
      yield* (yield* AccountAdmin).grantCredits(account.id, 3, "top-up").pipe(Effect.orDie)
      expectError(yield* withKey(server, key, "poor", "/transcribe", body), 402, "payment_required")
      expect((yield* withKey(server, key, "rich", "/transcribe", body)).status).toBe(200)
    })
  )

  it.effect("a batch retried with its key is the same batch", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const { key } = yield* server.newAccount({ plan: "pro", credits: 5, createdAt: oldAccount })
      const body = { video_ids: [videos.manualAndAuto, videos.autoOnly] }
      const first = yield* withKey(server, key, "batch-1", "/batch", body)
      expect(first.status, first.text).toBe(202)
      const again = yield* withKey(server, key, "batch-1", "/batch", body)
      expect(again.status).toBe(202)
      expect(again.json).toEqual(first.json)
    })
  )

  it.effect("a key that is empty, too long or not visible ASCII is 400 naming Idempotency-Key", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const { key } = yield* server.newAccount({ plan: "pro", credits: 5, createdAt: oldAccount })
      const body = { video: videos.manualAndAuto, mode: "captions_only" }
      for (const bad of ["x".repeat(256), "with space"]) {
        expectInvalid(yield* withKey(server, key, bad, "/transcribe", body), ["Idempotency-Key"])
      }
      expect(yield* balanceOf(server, key)).toBe(5)
    })
  )

  it.effect(
    "any interleaving of retries with one key charges at most once and answers them alike (property)",
    () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(
              fc.array(fc.record({ delayMs: fc.integer({ min: 0, max: 30 }), other: fc.boolean() }), {
                minLength: 2,
                maxLength: 8
              }),
              fc.constantFrom(videos.manualAndAuto, videos.multiLanguage, videos.autoOnly),
              async (retries, video) => {
                const { key } = await Effect.runPromise(
                  server.newAccount({ plan: "business", credits: 3, createdAt: oldAccount })
                )
                const idem = `prop-${Math.random().toString(36).slice(2)}`
                const body = { video, mode: "captions_only" }
                const answers = await Promise.all(
                  retries.map(async ({ delayMs, other }) => {
                    await new Promise((resolve) => setTimeout(resolve, delayMs))
                    const json = other ? { ...body, language: "fr" } : body
                    const response = await Effect.runPromise(withKey(server, key, idem, "/transcribe", json))
                    return { other, status: response.status, text: response.text }
                  })
                )
                const balance = await Effect.runPromise(balanceOf(server, key))
                expect(balance).toBeGreaterThanOrEqual(2)
                // Every answer to the winning request is the same; the other request is 409.
                const winners = answers.filter((a) => a.status === 200)
                expect(new Set(winners.map((a) => a.text)).size).toBeLessThanOrEqual(1)
                for (const a of answers) expect([200, 409]).toContain(a.status)
                expect(winners.every((a) => a.other === winners[0]?.other)).toBe(true)
              }
            ),
            { numRuns: 12 }
          )
        )
      })
  )

  it.effect("the contract declares the header, and the typed client's retry is charged once", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const document = (yield* server.get("/api/v2/openapi.json")).json as {
        paths: Record<string, Record<string, { parameters?: ReadonlyArray<{ name: string; in: string }> }>>
      }
      for (const path of ["/transcribe", "/batch", "/playlists/resolve", "/channels/resolve"]) {
        expect(document.paths[path]?.post?.parameters, path).toContainEqual(
          expect.objectContaining({ name: "idempotency-key", in: "header" })
        )
      }
      const { key } = yield* server.newAccount({ plan: "pro", credits: 5, createdAt: oldAccount })
      const client = yield* server.client(key)
      const payload = new Api.TranscribeRequest({ video: videos.manualAndAuto, mode: "captions_only" })
      const send = (idempotencyKey: string | undefined, request = payload) =>
        client.transcribe.transcribe({ payload: request, headers: idempotencyHeaders(idempotencyKey) })
      const first = yield* send("typed-1")
      expect(first).toMatchObject({ status: "completed", credits_used: 1 })
      expect(yield* send("typed-1")).toEqual(first)
      expect(yield* balanceOf(server, key)).toBe(4)
      const conflict = yield* Effect.flip(
        send("typed-1", new Api.TranscribeRequest({ video: videos.multiLanguage, mode: "captions_only" }))
      )
      expect(conflict).toMatchObject({ code: "conflict" })
      // Without a key, the same request is a new request (free now: the transcript is owned).
      const keyless = yield* send(undefined)
      expect(keyless.request_id).not.toBe(first.request_id)
    })
  )
})
