/**
 * How a handler runs a use case: `ApiError`s pass through to the caller, store failures
 * (`PersistenceError`) are logged with their cause and answered as `internal_error`, without
 * telling the caller anything about the store.
 */
import type { PersistenceError } from "@verbatim/core"
import { Errors } from "@verbatim/domain"
import { Effect } from "effect"

export const useCase = <A, R>(
  effect: Effect.Effect<A, Errors.ApiError | PersistenceError, R>
): Effect.Effect<A, Errors.ApiError, R> =>
  Effect.catchTag(effect, "PersistenceError", (failure) =>
    Effect.zipRight(
      Effect.logError(`store failure in ${failure.operation}`, failure.cause),
      Effect.fail(Errors.apiError("internal_error"))
    )
  )
