/**
 * How a handler runs a use case: core's boundary policy (`answer`), so HTTP answers what the worker
 * and the MCP server answer: `ApiError`s as they are, store and queue failures logged and answered
 * as `internal_error`.
 */

import type { ApiFailure } from "@verbatim/contract"
import { answer, type InfrastructureError } from "@verbatim/core"
import type { Effect } from "effect"

export const useCase: <A, R>(
  effect: Effect.Effect<A, ApiFailure | InfrastructureError, R>
) => Effect.Effect<A, ApiFailure, R> = answer
