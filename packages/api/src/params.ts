/**
 * Query strings and forms, read bounded before anything else (the domain's `boundedParams`): more
 * than `Api.maxParamFields` fields is 400 before any is decoded, so a request without a key costs
 * work in proportion to a bounded input. `verbatim_param_fields_read_total` counts the fields
 * decoded (registered on `metricsRegistry`), the work the bound holds.
 */
import { Api, type Errors } from "@verbatim/domain"
import { Either } from "effect"
import { Counter } from "prom-client"

export const paramFieldsRead = new Counter({
  name: "verbatim_param_fields_read_total",
  help: "Fields of query strings and forms decoded (bounded per request before any is decoded)",
  registers: []
})

/** The pairs of a query string or form (without its `?`), or the 400 past the field bound. */
export const readParams = (
  text: string
): Either.Either<ReadonlyArray<readonly [string, string]>, Errors.ApiError> =>
  Either.map(Api.boundedParams(text), (pairs) => {
    if (pairs.length > 0) paramFieldsRead.inc(pairs.length)
    return pairs
  })
