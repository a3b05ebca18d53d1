/**
 * POST /uploads and POST /uploads/{upload_id}/complete (spec "Upload status", DESIGN decision 12),
 * the signed PUT of the local store, and the sweep of files nobody needs any more.
 *
 * - create: registers the upload and signs a PUT for exactly its declared type and size, valid
 *   for `uploadTicketTtlMs`.
 * - complete: the file must be in storage with the declared size: then `uploaded` (200, again
 *   200 on a second call before consumption), 400 when it is not there, 404 for an unknown id or
 *   another account's, 409 once consumed. An uploaded file waits `uploadedTtlMs` to be
 *   transcribed.
 * - sweep: unconsumed uploads past their expiry lose their file and their record; consumed ones lose
 *   their file once their job has finished (the transcript is what is kept).
 */
import { Api, Errors, type Ids } from "@verbatim/domain"
import { DateTime, Effect, Layer, Option } from "effect"
import type { Account } from "../ports/accounts.js"
import {
  BlobStore,
  type BlobStoreError,
  type PutRejected,
  type SignedPut,
  SignedPutReceiver
} from "../ports/blob-store.js"
import { Secrets } from "../ports/secrets.js"
import { type UploadRecord, Uploads } from "../ports/uploads.js"
import { notFound } from "./failures.js"
import { MediaUploads } from "./tags.js"

/** How long a signed PUT URL is valid. */
export const uploadTicketTtlMs = 60 * 60 * 1000
/** How long an uploaded, unconsumed file is kept for a transcribe request. */
export const uploadedTtlMs = 24 * 60 * 60 * 1000

export const storageFailure = (error: BlobStoreError): Errors.ApiError =>
  Errors.apiError("storage_unavailable", `the media storage failed: ${error.reason}`)

/**
 * A refused signed PUT as the caller hears it: 403 for a bad or expired signature, 413 for a body
 * longer than signed (as the API's body limit answers), 400 for the rest of the body's faults.
 */
export const putFailure = (error: PutRejected): Errors.ApiError => {
  switch (error.refusal) {
    case "bad_signature":
    case "expired":
      return Errors.apiError("forbidden", `the upload URL is not valid: ${error.reason}`, {
        refusal: error.refusal
      })
    case "too_large":
      return Errors.apiError("request_too_large", `the upload was refused: ${error.reason}`, {
        refusal: error.refusal
      })
    case "content_type":
    case "size":
    case "incomplete":
      return Errors.apiError("invalid_request", `the upload was refused: ${error.reason}`, {
        refusal: error.refusal
      })
  }
}

export const uploadPath = (accountId: Ids.AccountId, id: Ids.UploadId): string => `uploads/${accountId}/${id}`

export const makeMediaUploads = Effect.gen(function* () {
  const uploads = yield* Uploads
  const blobs = yield* BlobStore
  const secrets = yield* Secrets

  const owned = (account: Account, id: Ids.UploadId) =>
    uploads.get(account.id, id).pipe(
      Effect.flatMap(
        Option.match({
          onNone: () => notFound(`upload ${id}`, { upload_id: id }),
          onSome: Effect.succeed
        })
      )
    )

  const completeAnswer = (upload: UploadRecord) =>
    new Api.UploadCompleteResponse({
      upload_id: upload.id,
      status: "uploaded",
      filename: upload.filename,
      duration_sec: upload.durationSeconds
    })

  const create = (account: Account, request: Api.UploadCreateRequest) =>
    Effect.gen(function* () {
      const id = (yield* secrets.uuid) as Ids.UploadId
      const now = yield* DateTime.now
      const expiresAt = DateTime.add(now, { millis: uploadTicketTtlMs })
      const path = uploadPath(account.id, id)
      const ticket = yield* blobs
        .signPut(path, { contentType: request.mime_type, sizeBytes: request.size_bytes, expiresAt })
        .pipe(Effect.mapError(storageFailure))
      yield* uploads.insert({
        id,
        accountId: account.id,
        filename: request.filename,
        mimeType: request.mime_type,
        sizeBytes: request.size_bytes,
        durationSeconds: request.duration_sec,
        path,
        status: "registered",
        jobId: null,
        expiresAt,
        createdAt: now,
        uploadedAt: null,
        consumedAt: null,
        fileRemovedAt: null
      })
      return new Api.UploadCreateResponse({
        upload_id: id,
        bucket: ticket.bucket,
        path: ticket.path,
        token: ticket.token,
        signed_url: ticket.url
      })
    }).pipe(Effect.withSpan("verbatim.uploads.create"))

  const complete = (account: Account, id: Ids.UploadId) =>
    Effect.gen(function* () {
      const upload = yield* owned(account, id)
      switch (upload.status) {
        case "consumed":
          return yield* Effect.fail(
            Errors.apiError("conflict", `upload ${id} was already transcribed`, { upload_id: id })
          )
        case "uploaded":
          return completeAnswer(upload)
        case "registered":
          break
      }
      const stored = yield* blobs.stat(upload.path).pipe(Effect.mapError(storageFailure))
      if (Option.isNone(stored)) {
        return yield* Effect.fail(
          Errors.apiError(
            "invalid_request",
            `the file of upload ${id} is not in storage: PUT its bytes to the signed_url first`,
            { upload_id: id }
          )
        )
      }
      if (stored.value.sizeBytes !== upload.sizeBytes) {
        return yield* Effect.fail(
          Errors.apiError(
            "invalid_request",
            `the stored file of upload ${id} has ${stored.value.sizeBytes} bytes, not the ${upload.sizeBytes} declared`,
            { upload_id: id }
          )
        )
      }
      const now = yield* DateTime.now
      const marked = yield* uploads.markUploaded(id, now, DateTime.add(now, { millis: uploadedTtlMs }))
      if (Option.isSome(marked)) return completeAnswer(marked.value)
      // A concurrent complete (or transcribe) moved it first: answer from where it is now.
      const again = yield* owned(account, id)
      return again.status === "consumed"
        ? yield* Effect.fail(
            Errors.apiError("conflict", `upload ${id} was already transcribed`, { upload_id: id })
          )
        : completeAnswer(again)
    }).pipe(Effect.withSpan("verbatim.uploads.complete"))

  /** Removes the files (and expired records) nobody needs; how many were swept. */
  const sweep = Effect.gen(function* () {
    const now = yield* DateTime.now
    const due = yield* uploads.sweepable(now, 500)
    let swept = 0
    for (const upload of due) {
      const removed = yield* blobs.remove(upload.path).pipe(
        Effect.as(true),
        Effect.catchAll((error) =>
          Effect.as(
            Effect.logWarning(`could not remove the file of upload ${upload.id}`, error.reason),
            false
          )
        )
      )
      if (removed) {
        yield* uploads.fileRemoved(upload.id, now)
        swept++
      }
    }
    return swept
  }).pipe(Effect.withSpan("verbatim.uploads.sweep"))

  const receiver = yield* Effect.serviceOption(SignedPutReceiver)
  const receive = <E>(put: SignedPut<E>) =>
    Option.match(receiver, {
      onNone: () =>
        Effect.fail(
          Errors.apiError(
            "not_found",
            "this server does not receive uploads: PUT the bytes to the signed_url"
          )
        ),
      onSome: (store) =>
        store.receive(put).pipe(
          Effect.asVoid,
          Effect.mapError((error) =>
            error._tag === "PutRejected" ? putFailure(error) : storageFailure(error)
          )
        )
    }).pipe(Effect.withSpan("verbatim.uploads.receive"))

  return MediaUploads.of({ create, complete, receive, sweep })
})

export const MediaUploadsLive = Layer.effect(MediaUploads, makeMediaUploads)
