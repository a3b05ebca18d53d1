/**
 * What an assistant can do for one account: the operations behind the MCP tools and resources, each
 * the use case of the REST endpoint it mirrors, failing with the API's `ApiError` (code, message,
 * details). Two implementations, so the tools are written once:
 *
 * - `inProcess`: the core use cases of this process. Each call is authorized by the effect it is
 *   given (over Streamable HTTP the POST's account, its JSON-RPC requests already taken from the
 *   rate limit; on stdio `inProcessByKey`: the account behind the key, then one request from its rate
 *   limit per call, 429 `rate_limit_exceeded` when refused) and answered through core's boundary
 *   policy (`answer`: an unavailable database or queue answered `service_unavailable`, other store
 *   failures logged and answered `internal_error`). Credits are the use cases' own; the idempotent
 *   ones run through core's `Idempotency` under the REST endpoint's name, with the request encoded
 *   as the REST handler encodes it, so a key means the same on both entry points.
 * - `overHttp`: the REST API of a running server, through the typed client of `@verbatim/contract`;
 *   the server authenticates, limits and charges; an idempotency key is sent as `Idempotency-Key`.
 *   Error bodies come back as the same `ApiError`.
 */
import { type HttpClient, HttpClientError } from "@effect/platform"
import { idempotencyHeaders, makeClient } from "@verbatim/contract"
import {
  Access,
  type Account,
  admit,
  answer,
  Balance,
  BatchWork,
  CollectionWork,
  Idempotency,
  Idempotent,
  type IdempotentUseCase,
  type InfrastructureError,
  JobQueries,
  type PersistenceError,
  StoredTranscripts,
  Themes,
  Transcribe,
  Translate,
  VideoInfoLookup
} from "@verbatim/core"
import { type Api, Errors, type Ids } from "@verbatim/domain"
import { Context, Effect, Redacted, Schema } from "effect"

type Answer<A> = Effect.Effect<A, Errors.ApiError>

/**
 * The `Idempotency-Key` of a request that charges or counts: a retry with the same key and request
 * answers the first answer and charges nothing again; the key with another request is `conflict`.
 */
export type IdempotencyKey = string | undefined

export interface Operations {
  /** POST /transcribe. */
  readonly transcribe: (
    request: Api.TranscribeRequest,
    key?: IdempotencyKey
  ) => Answer<Api.TranscribeResponse>
  /** POST /transcribe/estimate. */
  readonly estimate: (request: Api.EstimateRequest) => Answer<Api.EstimateResponse>
  /** GET /videos/info: the free look at a video before paying. */
  readonly videoInfo: (query: Api.VideoInfoQuery) => Answer<Api.VideoInfo>
  /** GET /jobs/{job_id}. */
  readonly job: (id: Ids.JobId, query: Api.JobQuery) => Answer<Api.Job>
  /** GET /transcripts. */
  readonly transcripts: (query: Api.TranscriptListQuery) => Answer<Api.TranscriptList>
  /** GET /transcripts/{video_id} (JSON). */
  readonly transcript: (videoId: string, query: Api.TranscriptQuery) => Answer<Api.StoredTranscript>
  /** GET /transcripts/{video_id}/languages. */
  readonly languages: (videoId: string, query: Api.LanguagesQuery) => Answer<Api.LanguagesResponse>
  /** POST /transcripts/{video_id}/translate. */
  readonly translate: (videoId: string, request: Api.TranslateRequest) => Answer<Api.TranslateResponse>
  /** GET /credits. */
  readonly credits: Answer<Api.CreditsResponse>
  /** POST /batch. */
  readonly createBatch: (request: Api.BatchRequest, key?: IdempotencyKey) => Answer<Api.BatchProcessing>
  /** GET /batch/{batch_id}. */
  readonly batch: (id: Ids.BatchId) => Answer<Api.BatchResponse>
  /** POST /playlists/resolve. */
  readonly resolvePlaylist: (
    request: Api.PlaylistResolveRequest,
    key?: IdempotencyKey
  ) => Answer<Api.PlaylistResolveResponse>
  /** POST /channels/resolve. */
  readonly resolveChannel: (
    request: Api.ChannelResolveRequest,
    key?: IdempotencyKey
  ) => Answer<Api.ChannelResolveResponse>
  /** GET /transcripts/{video_id}/themes, or POST when `unlock` (1 credit, once). */
  readonly themes: (videoId: string, query: Api.ThemesQuery, unlock: boolean) => Answer<Api.ThemesState>
}

/** The operations of the account an MCP session acts for. */
export class AccountOperations extends Context.Tag("@verbatim/mcp-tools/AccountOperations")<
  AccountOperations,
  Operations
>() {}

/** The use cases the in-process operations call. */
export type UseCases =
  | Access
  | Transcribe
  | JobQueries
  | StoredTranscripts
  | Balance
  | BatchWork
  | CollectionWork
  | Idempotency
  | Themes
  | Translate
  | VideoInfoLookup

/**
 * The operations on this process's use cases, for the account `authorize` gives (evaluated on
 * every call, so a revoked key stops working at once; `takingRequests` adds the rate limit).
 */
export const inProcess = (
  authorize: Effect.Effect<Account, Errors.ApiError>
): Effect.Effect<Operations, never, UseCases> =>
  Effect.gen(function* () {
    const transcribe = yield* Transcribe
    const jobs = yield* JobQueries
    const stored = yield* StoredTranscripts
    const balance = yield* Balance
    const batches = yield* BatchWork
    const collections = yield* CollectionWork
    const idempotency = yield* Idempotency
    const themes = yield* Themes
    const translations = yield* Translate
    const videos = yield* VideoInfoLookup

    const authorized = authorize

    const run = <A>(
      operation: string,
      useCase: (account: Account) => Effect.Effect<A, Errors.ApiError | InfrastructureError>
    ): Answer<A> =>
      authorized.pipe(
        Effect.flatMap((account) => answer(useCase(account))),
        Effect.withSpan(`mcp.operation.${operation}`, { captureStackTrace: false })
      )

    /** An idempotent operation: core's idempotent use case, keyed as its REST endpoint keys it. */
    const idempotent =
      <R, A>(operation: string, useCase: IdempotentUseCase<R, A>) =>
      (value: R, key?: IdempotencyKey): Answer<A> =>
        run(operation, (account) => useCase(account, value, key))

    return {
      transcribe: idempotent("transcribe", Idempotent.transcribe(idempotency, transcribe)),
      estimate: (request) => run("estimate", (account) => transcribe.estimate(account, request)),
      videoInfo: (query) => run("videoInfo", (account) => videos.info(account, query)),
      job: (id, query) => run("job", (account) => jobs.get(account, id, query)),
      transcripts: (query) => run("transcripts", (account) => stored.list(account, query)),
      transcript: (videoId, query) =>
        run("transcript", (account) =>
          stored.get(account, videoId, query).pipe(Effect.map((chosen) => chosen.response))
        ),
      languages: (videoId, query) => run("languages", (account) => stored.languages(account, videoId, query)),
      translate: (videoId, request) =>
        run("translate", (account) => translations.translate(account, videoId, request)),
      credits: run("credits", (account) => balance.credits(account)),
      createBatch: idempotent("createBatch", Idempotent.createBatch(idempotency, batches)),
      batch: (id) => run("batch", (account) => batches.get(account, id)),
      resolvePlaylist: idempotent("resolvePlaylist", Idempotent.resolvePlaylist(idempotency, collections)),
      resolveChannel: idempotent("resolveChannel", Idempotent.resolveChannel(idempotency, collections)),
      themes: (videoId, query, unlock) =>
        run(
          "themes",
          (account): Effect.Effect<Api.ThemesState, Errors.ApiError | PersistenceError> =>
            unlock ? themes.unlock(account, videoId, query) : themes.get(account, videoId, query)
        )
    }
  })

/** The account behind an API key, as the REST API authenticates it (`invalid_api_key` otherwise). */
export const byApiKey = (key: Redacted.Redacted): Effect.Effect<Account, Errors.ApiError, Access> =>
  Effect.flatMap(Access, (access) => answer(access.authenticate(Redacted.value(key))))

/** The account `authorize` gives, one request taken from its rate limit as a REST request takes it. */
export const takingRequests = (
  authorize: Effect.Effect<Account, Errors.ApiError, Access>
): Effect.Effect<Account, Errors.ApiError, Access> =>
  Effect.gen(function* () {
    const account = yield* authorize
    yield* Effect.flatMap(Access, (access) => admit(access, account))
    return account
  })

/** `inProcess` for the account of an API key, authenticated again on every call, each call one request. */
export const inProcessByKey = (key: Redacted.Redacted): Effect.Effect<Operations, never, UseCases> =>
  Effect.flatMap(Effect.context<Access>(), (context) =>
    inProcess(Effect.provide(takingRequests(byApiKey(key)), context))
  )

export interface RemoteOptions {
  /** The server's origin, e.g. `http://127.0.0.1:3000` (paths start with `/api/v2`). */
  readonly baseUrl: string
  readonly apiKey: Redacted.Redacted
}

const hasErrorBody = Schema.is(
  Schema.Struct({ error: Errors.ErrorCode, message: Schema.String, details: Schema.Object })
)

/**
 * The `ApiError` of a failed REST call. The typed client decodes the error bodies the contract
 * declares; a status an endpoint does not declare arrives as a response error whose body is read
 * here; anything else (the server unreachable, a body that is no error body) is `internal_error`
 * naming the server.
 */
const apiErrorOf =
  (baseUrl: string) =>
  (error: unknown): Effect.Effect<Errors.ApiError> => {
    if (error instanceof Errors.ApiError) return Effect.succeed(error)
    const unreachable = Effect.succeed(
      Errors.apiError("internal_error", `the Verbatim server at ${baseUrl} did not answer as expected`, {
        base_url: baseUrl
      })
    ).pipe(Effect.tap(() => Effect.logWarning(`REST call to ${baseUrl} failed`, error)))
    if (error instanceof HttpClientError.ResponseError) {
      return error.response.json.pipe(
        Effect.flatMap((body) =>
          hasErrorBody(body)
            ? Effect.succeed(
                new Errors.ApiError({
                  code: body.error,
                  message: body.message,
                  details: body.details as Errors.ApiError["details"]
                })
              )
            : unreachable
        ),
        Effect.orElse(() => unreachable)
      )
    }
    return unreachable
  }

/** The operations over the REST API of a running server. */
export const overHttp = (options: RemoteOptions): Effect.Effect<Operations, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const client = yield* makeClient({ baseUrl: options.baseUrl, apiKey: Redacted.value(options.apiKey) })
    const toApiError = apiErrorOf(options.baseUrl)
    const call = <A, E>(operation: string, effect: Effect.Effect<A, E>): Answer<A> =>
      effect.pipe(
        Effect.catchAll((error) => Effect.flatMap(toApiError(error), Effect.fail)),
        Effect.withSpan(`mcp.rest.${operation}`, { captureStackTrace: false })
      )
    return {
      transcribe: (payload, key) =>
        call("transcribe", client.transcribe.transcribe({ payload, headers: idempotencyHeaders(key) })),
      estimate: (payload) => call("estimate", client.transcribe.estimate({ payload })),
      videoInfo: (urlParams) => call("videoInfo", client.videos.info({ urlParams })),
      job: (job_id, urlParams) => call("job", client.jobs.job({ path: { job_id }, urlParams })),
      transcripts: (urlParams) => call("transcripts", client.transcripts.list({ urlParams })),
      transcript: (video_id, urlParams) =>
        call("transcript", client.transcripts.get({ path: { video_id }, urlParams })),
      languages: (video_id, urlParams) =>
        call("languages", client.transcripts.languages({ path: { video_id }, urlParams })),
      translate: (video_id, payload) =>
        call("translate", client.transcripts.translate({ path: { video_id }, payload })),
      credits: call("credits", client.credits.credits()),
      createBatch: (payload, key) =>
        call("createBatch", client.batch.createBatch({ payload, headers: idempotencyHeaders(key) })),
      batch: (batch_id) => call("batch", client.batch.batch({ path: { batch_id } })),
      resolvePlaylist: (payload, key) =>
        call("resolvePlaylist", client.playlists.resolve({ payload, headers: idempotencyHeaders(key) })),
      resolveChannel: (payload, key) =>
        call("resolveChannel", client.channels.resolve({ payload, headers: idempotencyHeaders(key) })),
      themes: (video_id, urlParams, unlock) =>
        unlock
          ? call("themes", client.themes.unlock({ path: { video_id }, urlParams }))
          : call("themes", client.themes.get({ path: { video_id }, urlParams }))
    }
  })
