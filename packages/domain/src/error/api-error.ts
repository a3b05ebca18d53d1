/**
 * `ApiError`, the typed error every use case fails with when the caller must get an error body:
 * a catalogue code, a message and free-form details. It knows its HTTP status and converts to and
 * from the wire body (`ErrorBody`, which has no `_tag`).
 */
import { type ParseResult, Schema } from "effect"
import type { ErrorBody } from "../api/error-body.js"
import { FreeFormObject } from "../api/fields.js"
import { ErrorCode, type ErrorStatus, isRetryable, meaningOf, statusOf } from "./codes.js"
import { plainIssuesOf, sentence } from "./plain-words.js"

export class ApiError extends Schema.TaggedError<ApiError>()("ApiError", {
  code: ErrorCode,
  message: Schema.String,
  details: FreeFormObject
}) {
  get status(): ErrorStatus {
    return statusOf(this.code)
  }

  get retryable(): boolean {
    return isRetryable(this.code)
  }

  /** The body sent to the caller. */
  toBody(): ErrorBody {
    return { error: this.code, message: this.message, details: this.details }
  }

  static fromBody(body: ErrorBody): ApiError {
    return new ApiError({ code: body.error, message: body.message, details: body.details })
  }
}

/** An error with the code's catalogue meaning as its message unless one is given. */
export const apiError = (code: ErrorCode, message?: string, details: FreeFormObject = {}): ApiError =>
  new ApiError({ code, message: message ?? meaningOf(code), details })

/** One problem of a rejected request: where (the path of field names and indexes) and what. */
export interface Issue {
  readonly path: ReadonlyArray<string | number>
  readonly message: string
}

/** The issues of a failed decode, one per problem found, in plain words (see `plain-words.ts`). */
export const issuesOf = (error: ParseResult.ParseError): ReadonlyArray<Issue> => plainIssuesOf(error.issue)

/** The longest issue message kept: messages quote the value they reject, which may be large. */
export const maxIssueMessageLength = 300

const shorten = (message: string): string =>
  message.length <= maxIssueMessageLength ? message : `${message.slice(0, maxIssueMessageLength - 1)}…`

const expectedPattern = /^Expected (.*), actual (.*)$/s
const absentBranch = /^(Expected (null|undefined), actual |must be (null|undefined|left out) \(got )/

/**
 * One issue per field. A union reports one issue per member it tried; for a field they read as one:
 * the members a value may be left out or null as are dropped when something else is said about the
 * field, and "Expected A, actual v" and "Expected B, actual v" become "Expected A | B, actual v".
 */
export const mergeIssues = (issues: ReadonlyArray<Issue>): ReadonlyArray<Issue> => {
  const byPath = new Map<string, { path: ReadonlyArray<string | number>; messages: Array<string> }>()
  for (const issue of issues) {
    const key = JSON.stringify(issue.path)
    const entry = byPath.get(key) ?? { path: issue.path, messages: [] }
    if (!entry.messages.includes(issue.message)) entry.messages.push(issue.message)
    byPath.set(key, entry)
  }
  return Array.from(byPath.values(), ({ path, messages }) => {
    const present = messages.filter((message) => !absentBranch.test(message))
    const kept = present.length > 0 ? present : messages
    const parsed = kept.map((message) => expectedPattern.exec(message))
    const actual = parsed[0]?.[2]
    const mergeable = kept.length > 1 && parsed.every((match) => match !== null && match[2] === actual)
    return {
      path,
      message: mergeable
        ? `Expected ${parsed.map((match) => match?.[1]).join(" | ")}, actual ${actual}`
        : kept.join("; ")
    }
  })
}

/**
 * A rejection as `invalid_request`, the one shape every entry point (HTTP, worker, MCP) answers:
 * one issue per field (merged, messages shortened), the message naming the first problem and
 * `details.issues` listing every one ({ path, message }).
 */
export const rejection = (issues: ReadonlyArray<Issue>): ApiError => {
  const merged = mergeIssues(issues).map((issue) => ({ path: issue.path, message: shorten(issue.message) }))
  const first = merged[0]
  const message = first === undefined ? meaningOf("invalid_request") : sentence(first)
  return new ApiError({ code: "invalid_request", message, details: { issues: merged } })
}

/** A failed decode as `invalid_request` (see `rejection`). */
export const invalidRequest = (error: ParseResult.ParseError): ApiError => rejection(issuesOf(error))
