/**
 * A typed client of the API, made from the same `VerbatimApi` the server serves. It sends the API
 * key as `Authorization: Bearer <key>` (the platform's client does not add security headers by
 * itself). Errors come back as the domain's `ApiError`.
 *
 * Requests are what a caller writes, not what the server decodes: a JSON body is its encoded form
 * (a plain object; fields the server defaults, such as `format` and `asr_options`, may be left out),
 * and a query's fields with a server default (`page`, `limit`, `include_timestamps`, ...) are
 * optional. The client checks them against the contract's schemas (defaults applied, an invalid
 * literal is a `ParseError`) before it sends them.
 *
 * Exports (`format=srt|vtt|txt` on GET /transcripts/{video_id}) are text, not JSON: fetch them with
 * a plain HTTP request.
 */
import {
  type HttpApi,
  HttpApiClient,
  type HttpApiEndpoint,
  type HttpApiGroup,
  HttpClient,
  type HttpClientError,
  HttpClientRequest,
  type HttpClientResponse
} from "@effect/platform"
import type { Api } from "@verbatim/domain"
import { Effect, Option, ParseResult, Schema } from "effect"
import type { Simplify } from "effect/Types"
import { VerbatimApi } from "./api.js"

export interface ClientOptions {
  /** The server's origin, e.g. `http://localhost:3000` (paths already start with `/api/v2`). */
  readonly baseUrl: string | URL
  /** The API key; without one only GET /ping answers. */
  readonly apiKey?: string | undefined
}

type Groups = typeof VerbatimApi extends HttpApi.HttpApi<infer _Id, infer G, infer _E, infer _R> ? G : never
type Failure = typeof VerbatimApi extends HttpApi.HttpApi<infer _Id, infer _G, infer E, infer _R> ? E : never

/**
 * The request schemas of each endpoint with a body or a query, by group and endpoint: the client's
 * request types are derived from them (the API's endpoint types keep only the decoded side).
 */
interface RequestSchemas {
  readonly batch: {
    readonly createBatch: { readonly payload: typeof Api.BatchRequest }
    readonly estimateBatch: { readonly payload: typeof Api.BatchRequest }
  }
  readonly playlists: {
    readonly resolve: { readonly payload: typeof Api.PlaylistResolveRequest }
    readonly history: { readonly urlParams: typeof Api.CollectionHistoryQuery }
  }
  readonly channels: {
    readonly resolve: { readonly payload: typeof Api.ChannelResolveRequest }
    readonly history: { readonly urlParams: typeof Api.CollectionHistoryQuery }
  }
  readonly recommendations: { readonly videos: { readonly urlParams: typeof Api.RecommendationsQuery } }
  readonly jobs: {
    readonly job: { readonly urlParams: typeof Api.JobQuery }
    readonly jobs: { readonly urlParams: typeof Api.JobListQuery }
  }
  readonly themes: {
    readonly unlock: { readonly urlParams: typeof Api.ThemesQuery }
    readonly get: { readonly urlParams: typeof Api.ThemesQuery }
  }
  readonly transcribe: {
    readonly transcribe: { readonly payload: typeof Api.TranscribeRequest }
    readonly estimate: { readonly payload: typeof Api.EstimateRequest }
  }
  readonly transcriptPages: { readonly page: { readonly urlParams: typeof Api.TranscriptPageQuery } }
  readonly transcripts: {
    readonly list: { readonly urlParams: typeof Api.TranscriptListQuery }
    readonly get: { readonly urlParams: typeof Api.TranscriptQuery }
    readonly remove: { readonly urlParams: typeof Api.DeleteTranscriptQuery }
    readonly bulkRemove: { readonly payload: typeof Api.BulkDeleteRequest }
    readonly languages: { readonly urlParams: typeof Api.LanguagesQuery }
    readonly translate: { readonly payload: typeof Api.TranslateRequest }
  }
  readonly uploads: { readonly createUpload: { readonly payload: typeof Api.UploadCreateRequest } }
  readonly videos: { readonly info: { readonly urlParams: typeof Api.VideoInfoQuery } }
}

type RequestOf<GroupName, EndpointName> = GroupName extends keyof RequestSchemas
  ? EndpointName extends keyof RequestSchemas[GroupName]
    ? RequestSchemas[GroupName][EndpointName]
    : unknown
  : unknown

/** A body as the caller writes it: the schema's encoded side (plain objects, defaults optional). */
type PayloadInput<Request, Decoded> = Request extends { readonly payload: infer S extends Schema.Schema.Any }
  ? Schema.Schema.Encoded<S>
  : Decoded
/** A query as the caller writes it: decoded values, fields with a server default optional. */
type UrlParamsInput<Request, Decoded> = Request extends {
  readonly urlParams: Schema.Struct<infer Fields extends Schema.Struct.Fields>
}
  ? Schema.Struct.Constructor<Fields>
  : Decoded

type Method<Endpoint, GroupError, Request> = [Endpoint] extends [
  HttpApiEndpoint.HttpApiEndpoint<
    infer _Name,
    infer _Method,
    infer Path,
    infer UrlParams,
    infer Payload,
    infer Headers,
    infer Success,
    infer Error,
    infer _R,
    infer _RE
  >
]
  ? <WithResponse extends boolean = false>(
      request: Simplify<
        HttpApiEndpoint.HttpApiEndpoint.ClientRequest<
          Path,
          [UrlParams] extends [never] ? never : UrlParamsInput<Request, UrlParams>,
          [Payload] extends [never] ? never : PayloadInput<Request, Payload>,
          Headers,
          WithResponse
        >
      >
    ) => Effect.Effect<
      WithResponse extends true ? [Success, HttpClientResponse.HttpClientResponse] : Success,
      Error | GroupError | Failure | HttpClientError.HttpClientError | ParseResult.ParseError
    >
  : never

type Group<GroupName extends string> = [HttpApiGroup.HttpApiGroup.WithName<Groups, GroupName>] extends [
  HttpApiGroup.HttpApiGroup<infer _GroupName, infer Endpoints, infer GroupError, infer _R>
]
  ? {
      readonly [Endpoint in Endpoints as HttpApiEndpoint.HttpApiEndpoint.Name<Endpoint>]: Method<
        Endpoint,
        GroupError,
        RequestOf<GroupName, HttpApiEndpoint.HttpApiEndpoint.Name<Endpoint>>
      >
    }
  : never

/** The client: one object per group, one method per endpoint, requests as a caller writes them. */
export type VerbatimClient = {
  readonly [GroupName in HttpApiGroup.HttpApiGroup.Name<Groups>]: Group<GroupName>
}

type AnyMethod = (request?: Record<string, unknown>) => Effect.Effect<unknown, unknown>

const hasMake = (schema: unknown): schema is { readonly make: (props: unknown) => unknown } =>
  typeof schema === "object" || typeof schema === "function"
    ? typeof (schema as { readonly make?: unknown }).make === "function"
    : false

/** A query with the server's defaults applied and checked, as the platform's client encodes it. */
const completeUrlParams = (
  schema: Schema.Schema.Any,
  value: unknown
): Effect.Effect<unknown, ParseResult.ParseError> =>
  hasMake(schema)
    ? Effect.try({
        try: () => schema.make(value ?? {}),
        catch: (error) =>
          ParseResult.isParseError(error)
            ? error
            : new ParseResult.ParseError({ issue: new ParseResult.Type(schema.ast, value, String(error)) })
      })
    : Effect.succeed(value)

/** A body decoded from what the caller wrote (defaults applied, classes made), as the client encodes it. */
const completePayload = (
  schema: Schema.Schema.Any,
  value: unknown
): Effect.Effect<unknown, ParseResult.ParseError> =>
  Schema.decodeUnknown(schema as Schema.Schema<unknown, unknown, never>)(value)

const loosen = (strict: Record<string, Record<string, AnyMethod>>): VerbatimClient => {
  const client: Record<string, Record<string, AnyMethod>> = {}
  for (const [groupName, group] of Object.entries(VerbatimApi.groups)) {
    const methods: Record<string, AnyMethod> = {}
    for (const [endpointName, endpoint] of Object.entries(group.endpoints)) {
      const call = strict[groupName]?.[endpointName]
      if (call === undefined) continue
      const payload = Option.getOrUndefined(endpoint.payloadSchema as Option.Option<Schema.Schema.Any>)
      const urlParams = Option.getOrUndefined(endpoint.urlParamsSchema as Option.Option<Schema.Schema.Any>)
      methods[endpointName] = (request) =>
        request === undefined
          ? call(request)
          : Effect.gen(function* () {
              const completed: Record<string, unknown> = { ...request }
              if (payload !== undefined && "payload" in request) {
                completed.payload = yield* completePayload(payload, request.payload)
              }
              if (urlParams !== undefined) {
                completed.urlParams = yield* completeUrlParams(urlParams, request.urlParams)
              }
              return yield* call(completed)
            })
    }
    client[groupName] = methods
  }
  return client as unknown as VerbatimClient
}

export const makeClient = (
  options: ClientOptions
): Effect.Effect<VerbatimClient, never, HttpClient.HttpClient> =>
  HttpApiClient.make(VerbatimApi, {
    baseUrl: options.baseUrl,
    transformClient: (client) =>
      options.apiKey === undefined
        ? client
        : HttpClient.mapRequest(client, HttpClientRequest.bearerToken(options.apiKey))
  }).pipe(Effect.map((strict) => loosen(strict as unknown as Record<string, Record<string, AnyMethod>>)))
