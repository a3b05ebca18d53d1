/**
 * Shared pieces of the black-box HTTP suites: the shipped demo videos by the role they play, their
 * caption tracks as the catalogue has them, account dates on each side of the 2026-10-01 default
 * switch, request shortcuts, and the checks of the error body and of the response schemas.
 */
import { readFileSync } from "node:fs"
import { expect } from "@effect/vitest"
import { type CatalogueVideo, parseCatalogue, shippedCataloguePath } from "@verbatim/demo-platform"
import { Api, Errors } from "@verbatim/domain"
import { DateTime, Effect, Either, Schema } from "effect"
import type { TestResponse, TestServerService } from "./server.js"

/** The demo videos of the shipped catalogue, by what each one is good for. */
export const videos = {
  /** English manual and auto tracks, 92 s. */
  manualAndAuto: "q3Lx8VbT2kA",
  /** Manual tracks in en, de, fr and es, plus an English auto track, 61 s. */
  multiLanguage: "Rt7mN0pWzYe",
  /** One English auto track only, 111 s. */
  autoOnly: "gT4_hJk9LmQ",
  /** German manual and auto tracks only, original language de, 101 s. */
  germanOnly: "Xb2-vCw5NsD",
  /** No captions at all, 12 minutes. */
  noCaptions: "Pz8QeL1uWfH",
  /** No captions, 540 minutes: longer than ASR takes. */
  veryLong: "Hs3KdN7rTyU",
  /** In the catalogue, but private. */
  unavailable: "Jm6VcX0bQpZ",
  /** pt-BR manual and pt auto tracks, 58 s. */
  portuguese: "Wn1FgT8sLkE",
  /** One English manual track only, 129 s. */
  manualOnly: "Ky5RdP2hMvC",
  /** Well-formed, but in no catalogue. */
  unknown: "AAAAAAAAAAA"
} as const

/** Every distinct transcript the catalogue can serve through POST /transcribe (video, language, source). */
export const servableTranscripts: ReadonlyArray<{
  readonly video: string
  readonly language: string
  readonly source: "manual" | "auto"
}> = [
  { video: videos.manualAndAuto, language: "en", source: "manual" },
  { video: videos.multiLanguage, language: "en", source: "manual" },
  { video: videos.multiLanguage, language: "de", source: "manual" },
  { video: videos.multiLanguage, language: "fr", source: "manual" },
  { video: videos.multiLanguage, language: "es", source: "manual" },
  { video: videos.autoOnly, language: "en", source: "auto" },
  { video: videos.germanOnly, language: "de", source: "manual" },
  { video: videos.portuguese, language: "pt-BR", source: "manual" },
  { video: videos.manualOnly, language: "en", source: "manual" }
]

const catalogue = parseCatalogue(readFileSync(shippedCataloguePath, "utf8"), shippedCataloguePath)

/** A video of the shipped catalogue (the test fails when it is not there). */
export const catalogueVideo = (id: string): CatalogueVideo => {
  const found = Either.getOrUndefined(catalogue)?.videos.find((video) => video.id === id)
  expect(found, `video ${id} in the shipped catalogue`).toBeDefined()
  return found as CatalogueVideo
}

/** The segments of a caption track of the shipped catalogue. */
export const trackSegments = (id: string, language: string, kind: "manual" | "auto") => {
  const track = catalogueVideo(id).captionTracks.find((t) => t.language === language && t.kind === kind)
  expect(track, `${kind} ${language} track of ${id}`).toBeDefined()
  return track?.segments ?? []
}

/** Created before 2026-10-01: the account default is captions_only. */
export const oldAccount = DateTime.unsafeMake("2025-06-01T00:00:00Z")
/** Created from 2026-10-01: the account default is auto (ASR needs confirmation). */
export const newAccount = DateTime.unsafeMake("2026-10-02T00:00:00Z")

export const api = (path: string): string => `/api/v2${path}`

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A uuid no row has. */
export const unknownUuid = "00000000-0000-4000-8000-000000000000"

export const transcribe = (server: TestServerService, key: string, json: unknown) =>
  server.post(api("/transcribe"), { key, json })

export const estimate = (server: TestServerService, key: string, json: unknown) =>
  server.post(api("/transcribe/estimate"), { key, json })

/** Decodes a body with a schema of the contract: the test fails when the body breaks it. */
export const decode = <A, I>(schema: Schema.Schema<A, I>, response: TestResponse) =>
  Schema.decodeUnknown(schema)(response.json).pipe(
    Effect.mapError(
      (error) => new Error(`status ${response.status}, body ${response.text}\n${error.message}`)
    ),
    Effect.orDie
  )

/** The account's balance, from GET /credits. */
export const balanceOf = (server: TestServerService, key: string) =>
  server.get(api("/credits"), { key }).pipe(
    Effect.flatMap((response) => decode(Api.CreditsResponse, response)),
    Effect.map((body) => body.credits)
  )

/** Every job of the account, newest first, read page by page from GET /jobs. */
export const allJobs = (server: TestServerService, key: string) =>
  Effect.gen(function* () {
    const jobs: Array<Api.JobListItem> = []
    for (let page = 1; ; page++) {
      const list = yield* decode(Api.JobList, yield* server.get(api(`/jobs?limit=100&page=${page}`), { key }))
      jobs.push(...list.jobs)
      if (!list.pagination.hasMore) return jobs
    }
  })

/** The account's succeeded transcripts (first 100), from GET /transcripts. */
export const transcriptList = (server: TestServerService, key: string, query = "") =>
  server
    .get(api(`/transcripts?limit=100${query}`), { key })
    .pipe(Effect.flatMap((response) => decode(Api.TranscriptList, response)))

/** The status is `status` and the body is exactly the error body with `code`. */
export const expectError = (response: TestResponse, status: number, code: Errors.ErrorCode) => {
  expect({ status: response.status, body: response.json }, response.text).toEqual({
    status,
    body: { error: code, message: expect.any(String), details: expect.any(Object) }
  })
  expect(Errors.statusOf(code)).toBe(status)
}

/** 400 invalid_request whose message starts with the field path and whose issues list that path. */
export const expectInvalid = (response: TestResponse, path: ReadonlyArray<string | number>) => {
  expectError(response, 400, "invalid_request")
  const body = response.json as { message: string; details: { issues?: unknown } }
  expect(body.message, response.text).toMatch(new RegExp(`^${escapeRegExp(path.join("."))}(: | must | is )`))
  expect(body.details.issues, response.text).toEqual(
    expect.arrayContaining([{ path: [...path], message: expect.any(String) }])
  )
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** A segment as the wire carries it, for comparisons with the catalogue. */
export const timed = (segment: { readonly text: string; readonly start: number; readonly end: number }) => ({
  text: segment.text,
  start: segment.start,
  end: segment.end
})

/** Posts the consent page's form (`/oauth/authorize`), without following the redirect. */
export const postConsent = (baseUrl: string, fields: Record<string, string>) =>
  fetch(`${baseUrl}/oauth/authorize`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
    redirect: "manual"
  })

/**
 * What a person does on the consent page for the authorization request `params`: signs in with
 * `key` (the page then shows the account and holds a sign-in id, never the key), then allows.
 * The consent page's HTML and the answer to "allow" (a redirect to the client, normally).
 */
export const consentWith = async (baseUrl: string, params: Record<string, string>, key: string) => {
  const signedIn = await postConsent(baseUrl, { ...params, action: "sign_in", api_key: key })
  const html = await signedIn.text()
  const signIn = /name="sign_in" value="([^"]+)"/.exec(html)?.[1] ?? ""
  const allowed = await postConsent(baseUrl, { ...params, action: "allow", sign_in: signIn })
  return { signedIn, html, signIn, allowed }
}
