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
 * One issue for every string of `input` that holds NUL (a value, or an object's key), at its path,
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
    if (typeof value === "string") {
      if (holdsNul(value)) issues.push({ path: pathOf(place), message: nulMessage })
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--) {
        pending.push({ value: value[index], place: { key: index, parent: place } })
      }
    } else if (typeof value === "object" && value !== null) {
      const entries = Object.entries(value)
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, item] = entries[index] ?? ["", undefined]
        const at = { key, parent: place }
        if (holdsNul(key)) pending.push({ value: keyNamed, place: at })
        else pending.push({ value: item, place: at })
      }
    } else if (value === keyNamed && place !== undefined) {
      issues.push({ path: pathOf(place), message: `its name ${nulMessage}` })
    }
  }
  return issues
}

/** Marks, on the walk's stack, a key holding NUL (reported in its place among the values). */
const keyNamed: unique symbol = Symbol("key holding NUL")

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
