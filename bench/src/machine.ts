/**
 * The machine's state around a bench run: a run started while the machine was busy (its 1-minute
 * load average above half its cores, before the bench itself ran) is reported, never called a
 * result: other work shared the cores the figures depend on.
 */
import { availableParallelism, loadavg } from "node:os"

export interface MachineState {
  readonly cores: number
  /** 1, 5 and 15-minute load averages when the run started. */
  readonly loadBefore: ReadonlyArray<number>
  readonly loadAfter: ReadonlyArray<number>
  /** Whether the run may be called a result. */
  readonly idle: boolean
}

/** The most a 1-minute load average may be, per core, for a run to count. */
export const idleLoadPerCore = 0.5

/** Reads the load now; call `done` when the run ends. */
export const watchMachine = (): { readonly done: () => MachineState } => {
  const cores = availableParallelism()
  const loadBefore = loadavg()
  return {
    done: () => ({
      cores,
      loadBefore,
      loadAfter: loadavg(),
      idle: (loadBefore[0] ?? 0) <= idleLoadPerCore * cores
    })
  }
}

/** The lines that say so. */
export const describeMachine = (state: MachineState): ReadonlyArray<string> => [
  `Machine: ${state.cores} cores, load average (1, 5, 15 min) ${state.loadBefore.map((n) => n.toFixed(2)).join(", ")} before, ${state.loadAfter.map((n) => n.toFixed(2)).join(", ")} after.`,
  state.idle
    ? "The machine was idle when the run started: these figures are a result."
    : `NOT A RESULT: the machine was busy when the run started (1-minute load ${state.loadBefore[0]?.toFixed(2)} above ${idleLoadPerCore} per core); run it again on an idle machine.`
]
