/**
 * The pages' one way to the API: its own routes (`/api/v2/...`), with the session cookie as the
 * credential (the browser sends it; script never sees it) and the session's CSRF token on every
 * change. A 401 means the session ended (signed out elsewhere, expired, or its key revoked): the
 * page goes to sign-in. A 429 is waited out as `Retry-After` says, a few times, then shown.
 */
import { session } from "./session.js"

export const apiBase = "/api/v2"

/** An answer of the API that is not a success: its status and the API's error body. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {}
  ) {
    super(message)
  }
}

export interface Answer<A> {
  readonly status: number
  readonly body: A
}

type Query = Record<string, string | number | boolean | undefined>

/** A query string of the values that are set. */
export const queryString = (query: Query = {}): string => {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== "") params.set(name, String(value))
  }
  const text = params.toString()
  return text === "" ? "" : `?${text}`
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Sends a request to the API and answers its JSON; fails with `ApiFailure` on an error status. */
export const api = async <A>(
  method: string,
  path: string,
  options: { readonly query?: Query; readonly body?: unknown } = {}
): Promise<Answer<A>> => {
  const headers: Record<string, string> = { accept: "application/json" }
  if (method !== "GET") headers["x-csrf-token"] = session.csrfToken
  if (options.body !== undefined) headers["content-type"] = "application/json"
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(`${apiBase}${path}${queryString(options.query)}`, {
      method,
      headers,
      credentials: "same-origin",
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) })
    })
    if (response.status === 429 && attempt < 3) {
      const seconds = Number(response.headers.get("retry-after") ?? "1")
      await wait(Math.min(10, Number.isFinite(seconds) && seconds > 0 ? seconds : 1) * 1000)
      continue
    }
    const text = await response.text()
    let body: unknown
    try {
      body = text === "" ? undefined : JSON.parse(text)
    } catch {
      body = undefined
    }
    if (response.status === 401) {
      window.location.assign("/sign-in")
    }
    if (response.status >= 400) {
      const error = (body ?? {}) as { error?: string; message?: string; details?: Record<string, unknown> }
      throw new ApiFailure(
        response.status,
        error.error ?? "internal_error",
        error.message ?? `The server answered ${response.status}`,
        error.details ?? {}
      )
    }
    return { status: response.status, body: body as A }
  }
}

/** The message to show for a failure. */
export const problemOf = (error: unknown): string =>
  error instanceof ApiFailure ? error.message : error instanceof Error ? error.message : String(error)
