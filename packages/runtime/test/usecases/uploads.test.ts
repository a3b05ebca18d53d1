/**
 * The upload use cases on the test wiring: an upload is registered with a signed PUT for exactly its
 * declared terms, completed once its file is in storage, and its file is swept when nobody needs it
 * any more (unconsumed past its expiry: record and file; consumed: the file, once its job ended).
 * Runs on the TestClock (it starts at the epoch) so expiry can be reached.
 */
import { expect, layer } from "@effect/vitest"
import { AccountAdmin, BlobStore, MediaUploads, SignedPutReceiver } from "@verbatim/core"
import { Api } from "@verbatim/domain"
import { Duration, Effect, Option, Stream, TestClock } from "effect"
import { useCasesLayer } from "./support.js"

const bytes = new Uint8Array(1_000).fill(7)

const arrange = Effect.gen(function* () {
  const admin = yield* AccountAdmin
  const account = yield* admin
    .createAccount({ name: "uploader", plan: "pro", credits: 10 })
    .pipe(Effect.orDie)
  const uploads = yield* MediaUploads
  const created = yield* uploads
    .create(
      account,
      new Api.UploadCreateRequest({
        filename: "a.wav",
        mime_type: "audio/wav",
        size_bytes: 1_000,
        duration_sec: 3
      })
    )
    .pipe(Effect.orDie)
  const put = (body: Uint8Array) =>
    Effect.flatMap(SignedPutReceiver, (receiver) =>
      receiver.receive({
        token: created.token,
        contentType: "audio/wav",
        contentLength: body.length,
        body: Stream.make(body)
      })
    )
  return { account, uploads, created, put }
})

const stored = (path: string) =>
  Effect.flatMap(BlobStore, (blobs) => Effect.map(blobs.stat(path), Option.isSome))

layer(useCasesLayer(), { timeout: "60 seconds" })("MediaUploads", (it) => {
  it.effect(
    "complete needs the file in storage with the declared size; a second complete answers the same",
    () =>
      Effect.gen(function* () {
        const { account, uploads, created, put } = yield* arrange
        const early = yield* Effect.flip(uploads.complete(account, created.upload_id))
        expect(early).toMatchObject({ code: "invalid_request" })
        yield* put(bytes).pipe(Effect.orDie)
        const done = yield* uploads.complete(account, created.upload_id).pipe(Effect.orDie)
        expect(done).toMatchObject({ status: "uploaded", filename: "a.wav", duration_sec: 3 })
        expect(yield* uploads.complete(account, created.upload_id).pipe(Effect.orDie)).toEqual(done)
      })
  )

  it.effect("a signed PUT with other terms is refused and leaves nothing", () =>
    Effect.gen(function* () {
      const { created, put } = yield* arrange
      const refused = yield* Effect.flip(put(bytes.subarray(0, 10)))
      expect(refused._tag).toBe("PutRejected")
      expect(yield* stored(created.path)).toBe(false)
    })
  )

  it.effect(
    "never completed: the record and file go an hour later; uploaded: 24 hours after completion",
    () =>
      Effect.gen(function* () {
        const first = yield* arrange
        const second = yield* arrange
        yield* first.put(bytes).pipe(Effect.orDie)
        yield* second.put(bytes).pipe(Effect.orDie)
        yield* second.uploads.complete(second.account, second.created.upload_id).pipe(Effect.orDie)
        yield* first.uploads.sweep
        expect(yield* stored(first.created.path)).toBe(true)

        yield* TestClock.adjust(Duration.minutes(61))
        // The suite shares one database: other tests' uploads may be swept too.
        expect(yield* first.uploads.sweep).toBeGreaterThanOrEqual(1)
        expect(yield* stored(first.created.path)).toBe(false)
        const gone = yield* Effect.flip(first.uploads.complete(first.account, first.created.upload_id))
        expect(gone).toMatchObject({ code: "not_found" })
        expect(yield* stored(second.created.path)).toBe(true)

        yield* TestClock.adjust(Duration.hours(24))
        expect(yield* second.uploads.sweep).toBeGreaterThanOrEqual(1)
        expect(yield* stored(second.created.path)).toBe(false)
      })
  )
})
