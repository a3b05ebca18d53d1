/**
 * POST /uploads, POST /uploads/{upload_id}/complete, and the signed PUT of the local store
 * (`PUT /uploads/files/{token}`): a plain route beside the contract, authenticated by its signed
 * token instead of an API key, that streams the body to the store (no JSON, no body limit but the
 * signed size).
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Api, Ids } from "@verbatim/domain"
import { Schema } from "effect"
import { basePath } from "../base.js"
import { BadRequest, Conflict, NotFound, ServiceUnavailable } from "../errors.js"
import { plainWords } from "../plain-words.js"
import { Authentication } from "../security.js"

export const UploadPath = Schema.Struct({ upload_id: Ids.UploadId })

export class UploadsGroup extends HttpApiGroup.make("uploads")
  .add(
    HttpApiEndpoint.post("createUpload", "/uploads")
      .setPayload(plainWords(Api.UploadCreateRequest))
      .addSuccess(Api.UploadCreateResponse)
      .addError(ServiceUnavailable)
      .annotate(
        OpenApi.Summary,
        "Register a media file; PUT its bytes to signed_url with its Content-Type, then complete it"
      )
  )
  .add(
    HttpApiEndpoint.post("completeUpload", "/uploads/:upload_id/complete")
      .setPath(plainWords(UploadPath))
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
