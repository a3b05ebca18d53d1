/** How a failed start (server, worker or admin command) is told to the operator: one readable message. */

import { CatalogueInvalid } from "@verbatim/demo-platform"
import { Cause, ConfigError, Option } from "effect"

/** A configuration failure as one line for the operator. */
export const describeConfigError = (error: ConfigError.ConfigError): string =>
  `Invalid configuration: ${String(error)}`

const messageOf = (value: unknown): string | undefined =>
  typeof value === "object" && value !== null && "message" in value && typeof value.message === "string"
    ? value.message
    : undefined

/** One failure as a sentence: what went wrong and, where known, which setting to fix. */
export const describeFailure = (error: unknown): string => {
  if (ConfigError.isConfigError(error)) return describeConfigError(error)
  if (error instanceof CatalogueInvalid) return `VERBATIM_DEMO_CATALOG: ${error.message}`
  const message = messageOf(error) ?? String(error)
  const cause =
    typeof error === "object" && error !== null && "cause" in error ? messageOf(error.cause) : undefined
  return cause === undefined || message.includes(cause) ? message : `${message}: ${cause}`
}

/** A failed run's cause as text, or `None` when it was only interrupted (Ctrl-C). */
export const describeCause = (cause: Cause.Cause<unknown>): Option.Option<string> => {
  if (Cause.isInterruptedOnly(cause)) return Option.none()
  return Option.some(
    Option.match(Cause.failureOption(cause), {
      onSome: describeFailure,
      onNone: () => Cause.pretty(cause)
    })
  )
}
