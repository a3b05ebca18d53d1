/**
 * A typed client of the API, made from the same `VerbatimApi` the server serves. It sends the API
 * key as `Authorization: Bearer <key>` (the platform's client does not add security headers by
 * itself). Errors come back as the domain's `ApiError`.
 *
 * Exports (`format=srt|vtt|txt` on GET /transcripts/{video_id}) are text, not JSON: fetch them with
 * a plain HTTP request.
 */
import { type HttpApi, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import type { Effect } from "effect"
import { VerbatimApi } from "./api.js"

export interface ClientOptions {
  /** The server's origin, e.g. `http://localhost:3000` (paths already start with `/api/v2`). */
  readonly baseUrl: string | URL
  /** The API key; without one only GET /ping answers. */
  readonly apiKey?: string | undefined
}

type Groups = typeof VerbatimApi extends HttpApi.HttpApi<infer _Id, infer G, infer _E, infer _R> ? G : never
type Failure = typeof VerbatimApi extends HttpApi.HttpApi<infer _Id, infer _G, infer E, infer _R> ? E : never

/** The client: one object per group, one method per endpoint. */
export type VerbatimClient = HttpApiClient.Client<Groups, Failure, never>

export const makeClient = (
  options: ClientOptions
): Effect.Effect<VerbatimClient, never, HttpClient.HttpClient> =>
  HttpApiClient.make(VerbatimApi, {
    baseUrl: options.baseUrl,
    transformClient: (client) =>
      options.apiKey === undefined
        ? client
        : HttpClient.mapRequest(client, HttpClientRequest.bearerToken(options.apiKey))
  })
