/** Runs a piece of work atomically: every port call inside commits together or not at all. */
import { Context, type Effect } from "effect"
import type { PersistenceError } from "../errors.js"

export class Transactor extends Context.Tag("@verbatim/core/Transactor")<
  Transactor,
  {
    readonly transaction: <A, E, R>(work: Effect.Effect<A, E, R>) => Effect.Effect<A, E | PersistenceError, R>
  }
>() {}
