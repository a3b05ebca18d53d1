/** Themes status, its machine, and how the API reports it (a refunded detection shows as locked). */
import { Schema } from "effect"
import { StateMachine } from "./machine.js"

export const ThemesStatus = Schema.Literal("locked", "processing", "completed", "refunded").annotations({
  identifier: "ThemesStatus"
})
export type ThemesStatus = typeof ThemesStatus.Type

/**
 * The themes machine. Spec, "Themes status":
 *
 * | locked     | GET themes          | Not yet unlocked                | locked (not a move)               |
 * | locked     | POST themes         | Enough credits                  | completed, or processing when ... |
 * | processing | POST themes         | Detection fails                 | refunded                          |
 * | completed  | POST or GET themes  | Already unlocked                | completed (not a move)            |
 *
 * Beyond the table: processing → completed when a detection that outran the wait finishes, and a
 * refunded record may be unlocked again by a new paid POST, exactly as a locked one (→ processing or
 * completed). Completed is final.
 */
export const ThemesMachine = StateMachine.make({
  name: "themes",
  states: ThemesStatus.literals,
  initial: ["locked"],
  transitions: {
    locked: ["processing", "completed"],
    processing: ["completed", "refunded"],
    completed: [],
    refunded: ["processing", "completed"]
  },
  final: ["completed"]
})

/** The themes statuses the API shows: locked, processing, completed. */
export const ReportedThemesStatus = Schema.Literal("locked", "processing", "completed").annotations({
  identifier: "ReportedThemesStatus"
})
export type ReportedThemesStatus = typeof ReportedThemesStatus.Type

/** How the API reports an internal themes status: refunded shows as locked, the rest as themselves. */
export const reportedThemesStatus = (status: ThemesStatus): ReportedThemesStatus =>
  status === "refunded" ? "locked" : status
