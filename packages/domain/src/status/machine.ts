/**
 * A small state machine: a transition table written as data, and pure functions that accept the
 * moves the table lists and refuse every other with a typed `IllegalTransition`.
 *
 * Staying in a state (a job polled while still processing, a locked themes record read again) is
 * not a transition: `move(s, s)` is refused unless the table lists `s` among its own successors.
 * Final states have no outgoing moves, whatever the table says.
 */
import { Either, Schema } from "effect"

/** A move the machine's table does not allow. `from` is null for the creation of a new record. */
export class IllegalTransition extends Schema.TaggedError<IllegalTransition>()("IllegalTransition", {
  machine: Schema.String,
  from: Schema.NullOr(Schema.String),
  to: Schema.String
}) {
  override get message(): string {
    return `${this.machine}: ${this.from ?? "(new)"} -> ${this.to} is not allowed`
  }
}

/** The table of a machine, as plain data (readable in docs and tests). */
export interface Table<S extends string> {
  readonly name: string
  /** Every state, in the order of the status schema's literals. */
  readonly states: ReadonlyArray<S>
  /** The states a new record may start in. */
  readonly initial: ReadonlyArray<S>
  /** For each state, the states it may move to. */
  readonly transitions: { readonly [K in S]: ReadonlyArray<S> }
  /** Finished states: no move leaves them. */
  readonly final: ReadonlyArray<S>
}

export interface StateMachine<S extends string> {
  readonly table: Table<S>
  readonly name: string
  readonly canStart: (to: S) => boolean
  readonly canMove: (from: S, to: S) => boolean
  /** A new record in state `to`. */
  readonly start: (to: S) => Either.Either<S, IllegalTransition>
  /** The record moves from `from` to `to`. */
  readonly move: (from: S, to: S) => Either.Either<S, IllegalTransition>
  readonly isFinal: (s: S) => boolean
  /** The states `from` may move to (none for a final state). */
  readonly next: (from: S) => ReadonlyArray<S>
}

const make = <const S extends string>(table: Table<S>): StateMachine<S> => {
  const isFinal = (s: S): boolean => table.final.includes(s)
  const next = (from: S): ReadonlyArray<S> => (isFinal(from) ? [] : table.transitions[from])
  const canStart = (to: S): boolean => table.initial.includes(to)
  const canMove = (from: S, to: S): boolean => next(from).includes(to)
  return {
    table,
    name: table.name,
    canStart,
    canMove,
    start: (to) =>
      canStart(to)
        ? Either.right(to)
        : Either.left(new IllegalTransition({ machine: table.name, from: null, to })),
    move: (from, to) =>
      canMove(from, to)
        ? Either.right(to)
        : Either.left(new IllegalTransition({ machine: table.name, from, to })),
    isFinal,
    next
  }
}

/** The states reachable from the machine's initial states (initial states included). */
const reachable = <S extends string>(machine: StateMachine<S>): ReadonlyArray<S> => {
  const seen: Array<S> = []
  const visit = (s: S): void => {
    if (seen.includes(s)) return
    seen.push(s)
    for (const t of machine.next(s)) visit(t)
  }
  for (const s of machine.table.initial) visit(s)
  return machine.table.states.filter((s) => seen.includes(s))
}

export const StateMachine = { make, reachable } as const
