/**
 * The one string rule of every entry point: no string a caller sends may hold the NUL character
 * (`\u0000`), which PostgreSQL text cannot store. Entry points apply it to a request's whole input
 * (a JSON body, the query string, a form, an MCP tool's arguments) before any field is decoded, so
 * no field of any request, present or future, carries NUL towards the database; keys count too.
 */

import type { ApiError } from "../error/api-error.js"
import { type Issue, rejection } from "../error/api-error.js"

export const nulMessage = "must not contain the NUL character (\\u0000)"

const holdsNul = (text: string): boolean => text.includes("\u0000")

/**
 * One issue for every string of `input` that holds NUL (a value, or an object's key), at its path.
 * Walks without recursion, so any nesting is safe.
 */
export const nulIssues = (input: unknown): ReadonlyArray<Issue> => {
  const issues: Array<Issue> = []
  const pending: Array<{ readonly value: unknown; readonly path: ReadonlyArray<string | number> }> = [
    { value: input, path: [] }
  ]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path } = next
    if (typeof value === "string") {
      if (holdsNul(value)) issues.push({ path, message: nulMessage })
    } else if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) pending.push({ value: item, path: [...path, index] })
    } else if (typeof value === "object" && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        if (holdsNul(key)) issues.push({ path: [...path, key], message: `its name ${nulMessage}` })
        else pending.push({ value: item, path: [...path, key] })
      }
    }
  }
  return issues.reverse()
}

/** The `invalid_request` answer for an input holding NUL, naming each field, or undefined when it holds none. */
export const unstorable = (input: unknown): ApiError | undefined => {
  const issues = nulIssues(input)
  return issues.length === 0 ? undefined : rejection(issues)
}

/** The fields of a query string or form, each name with its values (a repeated name is a list). */
export const paramFields = (
  params: Iterable<readonly [string, string]>
): { readonly [name: string]: unknown } => {
  const fields = new Map<string, Array<string>>()
  for (const [name, value] of params) fields.set(name, [...(fields.get(name) ?? []), value])
  return Object.fromEntries(
    Array.from(fields, ([name, values]) => [name, values.length === 1 ? values[0] : values])
  )
}
