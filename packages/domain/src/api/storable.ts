/**
 * The one string rule of every entry point: no string a caller sends may hold the NUL character
 * (`\u0000`) or an unpaired UTF-16 surrogate (`\ud800` alone), neither of which PostgreSQL text
 * (or `jsonb`) can store. Entry points apply it to a request's whole input
 * (a JSON body, the query string, a form, an MCP tool's arguments) before any field is decoded, so
 * no field of any request, present or future, carries NUL towards the database; keys count too.
 */

import { Either } from "effect"
import type { ApiError } from "../error/api-error.js"
import { apiError, type Issue, rejection } from "../error/api-error.js"

export const nulMessage = "must not contain the NUL character (\\u0000)"

export const surrogateMessage = "must be valid Unicode text (it holds an unpaired UTF-16 surrogate)"

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const unpairedSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** Why `text` cannot be stored (its issue's message), or undefined when it can. */
const unstorableBecause = (text: string): string | undefined =>
  text.includes("\u0000") ? nulMessage : unpairedSurrogate.test(text) ? surrogateMessage : undefined

/** Marks, on the walk's stack, a key that cannot be stored (reported in its place among the values). */
class KeyNamed {
  constructor(readonly because: string) {}
}

/** Where a value sits: its key and its parent's place (paths are spelled out only for issues). */
interface Place {
  readonly key: string | number
  readonly parent: Place | undefined
}

const pathOf = (place: Place | undefined): Array<string | number> => {
  const path: Array<string | number> = []
  for (let at = place; at !== undefined; at = at.parent) path.push(at.key)
  return path.reverse()
}

/**
 * One issue for every string of `input` that holds NUL or an unpaired surrogate (a value, or an object's key), at its path,
 * in the order they appear. Walks without recursion and without copying paths, so any nesting is
 * safe and linear.
 */
export const nulIssues = (input: unknown): ReadonlyArray<Issue> => {
  const issues: Array<Issue> = []
  const pending: Array<{ readonly value: unknown; readonly place: Place | undefined }> = [
    { value: input, place: undefined }
  ]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, place } = next
    if (value instanceof KeyNamed) {
      issues.push({ path: pathOf(place), message: `its name ${value.because}` })
    } else if (typeof value === "string") {
      const because = unstorableBecause(value)
      if (because !== undefined) issues.push({ path: pathOf(place), message: because })
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--) {
        pending.push({ value: value[index], place: { key: index, parent: place } })
      }
    } else if (typeof value === "object" && value !== null) {
      const entries = Object.entries(value)
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, item] = entries[index] ?? ["", undefined]
        const at = { key, parent: place }
        const because = unstorableBecause(key)
        if (because !== undefined) pending.push({ value: new KeyNamed(because), place: at })
        else pending.push({ value: item, place: at })
      }
    }
  }
  return issues
}

/** The `invalid_request` answer for an input holding NUL or an unpaired surrogate, naming each field, or undefined when it holds none. */
export const unstorable = (input: unknown): ApiError | undefined => {
  const issues = nulIssues(input)
  return issues.length === 0 ? undefined : rejection(issues)
}

/**
 * The most fields a query string or form may hold: a real request sends a few dozen. Beyond it the
 * input is refused before any field is decoded, so the work an unauthenticated request can cause
 * is bounded by this, not by the size of what it sends.
 */
export const maxParamFields = 1000

/** How many non-empty `&`-separated fields `text` holds, counting no further than `limit + 1`. */
const countFields = (text: string, limit: number): number => {
  let count = 0
  let start = 0
  while (start <= text.length && count <= limit) {
    const end = text.indexOf("&", start)
    const stop = end < 0 ? text.length : end
    if (stop > start) count++
    if (end < 0) break
    start = end + 1
  }
  return count
}

/**
 * The name/value pairs of a query string or form (without its `?`), decoded as `URLSearchParams`
 * decodes them; more than `limit` fields are refused with 400 `invalid_request` before any is
 * decoded. Linear in the text.
 */
export const boundedParams = (
  text: string,
  limit: number = maxParamFields
): Either.Either<ReadonlyArray<readonly [string, string]>, ApiError> =>
  countFields(text, limit) > limit
    ? Either.left(
        apiError("invalid_request", `The query string or form holds more than ${limit} fields`, {
          max_fields: limit
        })
      )
    : Either.right(Array.from(new URLSearchParams(text)))

/** The fields of a query string or form, each name with its values (a repeated name is a list). Linear. */
export const paramFields = (
  params: Iterable<readonly [string, string]>
): { readonly [name: string]: unknown } => {
  const fields = new Map<string, Array<string>>()
  for (const [name, value] of params) {
    const values = fields.get(name)
    if (values === undefined) fields.set(name, [value])
    else values.push(value)
  }
  return Object.fromEntries(
    Array.from(fields, ([name, values]) => [name, values.length === 1 ? values[0] : values])
  )
}
