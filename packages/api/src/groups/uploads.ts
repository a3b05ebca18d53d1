/**
 * POST /uploads, POST /uploads/{upload_id}/complete, and the signed PUT of the local store
 * (`PUT /uploads/files/{token}`): a plain route beside the contract, authenticated by its signed
 * token instead of an API key, that streams the body to the store (no JSON, no body limit but the
 * signed size).
 */
import {
  HttpApi,
  HttpApiBuilder,
  HttpApiEndpoint,
  HttpApiGroup,
  HttpServerRequest,
  HttpServerResponse,
  OpenApi
} from "@effect/platform"
import { CurrentAccount, MediaUploads } from "@verbatim/core"
import { Api, Ids } from "@verbatim/domain"
import { Effect, Schema } from "effect"
import { apiId, basePath } from "../base.js"
import { BadRequest, Conflict, errorResponse, NotFound, ServiceUnavailable } from "../errors.js"
import { Authentication } from "../security.js"
import { useCase } from "../use-case.js"

export const UploadPath = Schema.Struct({ upload_id: Ids.UploadId })

export class UploadsGroup extends HttpApiGroup.make("uploads")
  .add(
    HttpApiEndpoint.post("createUpload", "/uploads")
      .setPayload(Api.UploadCreateRequest)
      .addSuccess(Api.UploadCreateResponse)
      .addError(ServiceUnavailable)
      .annotate(
        OpenApi.Summary,
        "Register a media file; PUT its bytes to signed_url with its Content-Type, then complete it"
      )
  )
  .add(
    HttpApiEndpoint.post("completeUpload", "/uploads/:upload_id/complete")
      .setPath(UploadPath)
      .addSuccess(Api.UploadCompleteResponse)
      .addError(NotFound)
      .addError(Conflict)
      .addError(ServiceUnavailable)
      .annotate(OpenApi.Summary, "Confirm that the file is in storage (400 when it is not)")
  )
  .addError(BadRequest)
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Upload audio or video files to transcribe with upload_id")
  .prefix(basePath) {}

export const UploadsHttp = HttpApiBuilder.group(
  HttpApi.make(apiId).add(UploadsGroup),
  "uploads",
  (handlers) =>
    handlers
      .handle("createUpload", ({ payload }) =>
        Effect.gen(function* () {
          const uploads = yield* MediaUploads
          return yield* useCase(uploads.create(yield* CurrentAccount, payload))
        })
      )
      .handle("completeUpload", ({ path }) =>
        Effect.gen(function* () {
          const uploads = yield* MediaUploads
          return yield* useCase(uploads.complete(yield* CurrentAccount, path.upload_id))
        })
      )
)

/** Where the local store's signed URLs point: `{public URL}{signedPutPrefix}/{token}`. */
export const signedPutPrefix = `${basePath}/uploads/files` as const

/** Whether a request is a signed PUT (exempt from the JSON body policy and the body limit). */
export const isSignedPut = (method: string, url: string): boolean =>
  method === "PUT" && url.startsWith(`${signedPutPrefix}/`)

const contentLength = (value: string | undefined): number | undefined => {
  if (value === undefined || !/^\d+$/.test(value)) return undefined
  return Number(value)
}

/** The signed PUT route: 200 with `{ status: "stored" }`, or the error body. */
export const SignedPutRoute = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const uploads = yield* MediaUploads
    // A wildcard, not a `:token` parameter: the router refuses parameters over 100 characters.
    yield* router.put(
      `${signedPutPrefix}/*`,
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const token = decodeURIComponent(request.url.slice(signedPutPrefix.length + 1).split("?")[0] ?? "")
        return yield* useCase(
          uploads.receive({
            token,
            contentType: request.headers["content-type"],
            contentLength: contentLength(request.headers["content-length"]),
            body: request.stream
          })
        ).pipe(
          Effect.as(HttpServerResponse.unsafeJson({ status: "stored" })),
          Effect.catchAll((error) => Effect.succeed(errorResponse(error)))
        )
      })
    )
  })
)
