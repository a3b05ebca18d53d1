/**
 * Plans (free, basic, pro, business) and the features only paid plans may use.
 * The free plan answers 403 `plan_required` for a paid-only feature (DESIGN decision 10).
 */
import { Schema } from "effect"

export const Plan = Schema.Literal("free", "basic", "pro", "business").annotations({
  identifier: "Plan",
  description: "The account's plan: it sets rate limits, batch sizes and channel caps"
})
export type Plan = typeof Plan.Type

export const allPlans: ReadonlyArray<Plan> = Plan.literals

/** The plans that pay, in ascending order of their limits. */
export const paidPlans: ReadonlyArray<Plan> = ["basic", "pro", "business"]

export const isPaid = (plan: Plan): boolean => paidPlans.includes(plan)

/** Features reserved to paid plans: POST /playlists/resolve and POST /channels/resolve. */
export const PaidFeature = Schema.Literal("playlist_resolve", "channel_resolve").annotations({
  identifier: "PaidFeature",
  description: "A feature available on paid plans only"
})
export type PaidFeature = typeof PaidFeature.Type

export const paidOnlyFeatures: ReadonlyArray<PaidFeature> = PaidFeature.literals

/** Whether the plan may use the feature: every paid-only feature needs a paid plan. */
export const allows = (plan: Plan, feature: PaidFeature): boolean =>
  !paidOnlyFeatures.includes(feature) || isPaid(plan)
