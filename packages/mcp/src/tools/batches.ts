/**
 * run_batch and get_batch: many videos in one batch, answered at once with a batch_id, then
 * followed a page of items at a time. A batch that could start speech recognition asks first.
 */
import { Api, Credits, Ids, Language, Mode, Plan, Pricing, Status, Transcript } from "@verbatim/domain"
import { Effect, Schema } from "effect"
import { namedOnly } from "../json-schema.js"
import { AccountOperations } from "../operations.js"
import { defineTool } from "../tool.js"
import {
  AsrOptionsInput,
  asJson,
  asrModes,
  asrOptionsNamed,
  bounded,
  Count,
  IdempotencyKeyInput,
  LanguageInput,
  ModeInput,
  VideoInput
} from "./shared.js"

// ---------------------------------------------------------------------------------------------
// run_batch and get_batch
// ---------------------------------------------------------------------------------------------

/** Credits of one hour of speech recognition without options (the ASR base rate). */
const asrCreditsPerHour = Pricing.asrBaseCredits(Pricing.secondsPerHour)

const RunBatchInput = Schema.Struct({
  video_ids: Schema.Array(VideoInput)
    .pipe(Schema.minItems(1), Schema.maxItems(Plan.maxBatchSize))
    .annotations({
      description: `The videos: YouTube URLs or 11-character ids, 1 to ${Plan.maxBatchSize} (the plan may allow fewer)`
    }),
  language: Schema.optional(LanguageInput),
  mode: Schema.optional(ModeInput),
  confirm_asr: Schema.optionalWith(
    Schema.Boolean.annotations({
      description:
        "true only after the user agreed to pay for speech recognition (ASR) of the videos without captions. Without it, a batch that could start ASR (an ASR mode, or a webhook_url with the account's default mode) answers requires_asr_confirmation and nothing starts",
      default: false
    }),
    { default: () => false }
  ),
  webhook_url: Schema.optional(
    Api.HttpUrl.annotations({
      description:
        "An https URL that receives the finished batch; required by the API when speech recognition may run (modes auto and speech_to_text_only)"
    })
  ),
  asr_options: Schema.optional(AsrOptionsInput),
  idempotency_key: Schema.optional(IdempotencyKeyInput)
})

const BatchSummaryOutput = Schema.Struct(Api.BatchSummary.fields)

const RunBatchAcceptedOutput = Schema.Struct({
  status: Schema.Literal("processing"),
  batch_id: Ids.BatchId,
  summary: BatchSummaryOutput,
  credits_used: Credits.Credits,
  created_at: Schema.DateTimeUtc,
  next_step: Schema.String
}).annotations({ description: "The batch was accepted and runs in the background; poll get_batch" })

const RunBatchConfirmationOutput = Schema.Struct({
  status: Schema.Literal("requires_asr_confirmation"),
  video_count: Count,
  mode: Schema.NullOr(Mode.Mode),
  credits_used: Credits.Credits,
  asr_credits_per_hour: Credits.Credits.annotations({
    description: "Speech recognition's base price per hour of audio, before options"
  }),
  question: Schema.String.annotations({ description: "Ask the user this before confirming" }),
  confirm_arguments: Api.FreeFormObject.annotations({
    description: "The arguments to call run_batch with once the user agreed (confirm_asr: true)"
  })
}).annotations({
  description: "Speech recognition could start: nothing was started or charged; ask the user"
})

const RunBatchOutput = Schema.Union(RunBatchAcceptedOutput, RunBatchConfirmationOutput)
type RunBatchOutput = typeof RunBatchOutput.Type

/**
 * What confirm_arguments carry in place of a webhook_url the request did not send: the API requires
 * one for a batch that runs speech recognition, so the question asks for it (it is no URL: sent
 * unfilled, run_batch refuses it naming webhook_url).
 */
export const webhookPlaceholder = "<an https URL of the user's that receives the finished batch>"

const batchQuestion = (count: number, mode: Mode.Mode | undefined, hasWebhook: boolean) =>
  [
    `${mode === undefined ? "With a webhook_url, the account's default mode applies, which may send" : `Mode ${mode} sends`} the videos without usable captions (of these ${count}) to speech recognition, which costs about ${asrCreditsPerHour} credits per hour of audio each (more with asr_options); estimate_cost prices one video.`,
    hasWebhook
      ? "Ask the user whether to go ahead; if they agree, call run_batch with confirm_arguments as they are."
      : `A batch that runs speech recognition requires a webhook_url (an https URL of the user's that receives the finished batch). Ask the user whether to go ahead and for that URL; if they agree, call run_batch with confirm_arguments, its webhook_url "${webhookPlaceholder}" replaced by their URL. Without a webhook, transcribe each video with transcribe_video (confirm_asr: true) instead, once the user agreed to its price.`,
    "Nothing has been started or charged."
  ].join(" ")

export const runBatch = defineTool({
  name: "run_batch",
  title: "Transcribe many videos",
  description: [
    `Transcribe up to ${Plan.maxBatchSize} YouTube videos in one batch (the plan may allow fewer), stored in the user's library.`,
    "It answers at once with a batch_id while the videos run in the background: poll get_batch with it (every little while) until status is completed, partial or failed.",
    "Captions cost 1 credit per video not owned yet; the credits for them must be there when the batch starts.",
    "Speech recognition of videos without captions costs much more and needs a webhook_url: without confirm_asr: true, a batch that could start it answers requires_asr_confirmation with a question for the user, and nothing starts."
  ].join(" "),
  input: RunBatchInput,
  output: RunBatchOutput,
  listedInput: (schema) => namedOnly(schema, "asr_options", asrOptionsNamed),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  run: (input) =>
    Effect.gen(function* () {
      const operations = yield* AccountOperations
      const mayStartAsr =
        input.mode === undefined ? input.webhook_url !== undefined : asrModes.includes(input.mode)
      if (!input.confirm_asr && mayStartAsr) {
        // Sent with the webhook placeholder filled (the question says so), the confirmation succeeds.
        const confirmed = yield* asJson(RunBatchInput, { ...input, confirm_asr: true })
        const confirm_arguments =
          input.webhook_url === undefined ? { ...confirmed, webhook_url: webhookPlaceholder } : confirmed
        return {
          status: "requires_asr_confirmation" as const,
          video_count: input.video_ids.length,
          mode: input.mode ?? null,
          credits_used: 0,
          asr_credits_per_hour: asrCreditsPerHour,
          question: batchQuestion(input.video_ids.length, input.mode, input.webhook_url !== undefined),
          confirm_arguments
        }
      }
      const mode = input.mode ?? (input.confirm_asr ? "auto" : undefined)
      const accepted = yield* operations.createBatch(
        new Api.BatchRequest({
          video_ids: input.video_ids,
          ...(input.language === undefined ? {} : { language: input.language }),
          ...(mode === undefined ? {} : { mode }),
          ...(input.webhook_url === undefined ? {} : { webhook_url: input.webhook_url }),
          ...(input.asr_options === undefined ? {} : { asr_options: input.asr_options })
        }),
        input.idempotency_key
      )
      return {
        status: "processing" as const,
        batch_id: accepted.batch_id,
        summary: accepted.summary,
        credits_used: accepted.credits_used,
        created_at: accepted.created_at,
        next_step: `The batch runs in the background. Call get_batch with batch_id ${accepted.batch_id} every little while until its status is completed, partial or failed; it lists the items a page at a time.`
      } satisfies RunBatchOutput
    })
})

/** Items of a batch shown per page of get_batch. */
export const batchPage = { default: 50, max: 200 } as const

const ItemStatusInput = Status.JobStatus.annotations({
  description: "Only the items in this status (e.g. failed, to see what went wrong)"
})

const GetBatchInput = Schema.Struct({
  batch_id: Ids.BatchId.annotations({ description: "The batch_id that run_batch returned" }),
  status: Schema.optional(ItemStatusInput),
  offset: Schema.optionalWith(
    Schema.Int.pipe(Schema.between(0, Plan.maxBatchSize)).annotations({
      description: "Items to skip (next_offset of the previous page); leave out for the first page",
      default: 0
    }),
    { default: () => 0 }
  ),
  limit: bounded(1, batchPage.max, batchPage.default, "Items per page")
})

const BatchItemOutput = Schema.Struct({
  index: Count.annotations({ description: "Position of the video in the batch, from 0" }),
  video_id: Schema.String,
  status: Status.JobStatus,
  job_id: Schema.NullOr(Ids.JobId),
  error: Schema.NullOr(Schema.String),
  credits_used: Credits.Credits,
  video_title: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  language: Schema.optionalWith(Language.LanguageCode, { exact: true }),
  source: Schema.optionalWith(Transcript.SourceKind, { exact: true }),
  character_count: Schema.optionalWith(Count, { exact: true })
}).annotations({
  description: "One video of the batch; a completed one names its transcript (read it with get_transcript)"
})
type BatchItemOutput = typeof BatchItemOutput.Type

const GetBatchOutput = Schema.Struct({
  batch_id: Ids.BatchId,
  status: Schema.Literal("processing", "completed", "partial", "failed"),
  summary: BatchSummaryOutput,
  credits_used: Credits.Credits,
  created_at: Schema.DateTimeUtc,
  started_at: Schema.NullOr(Schema.DateTimeUtc),
  completed_at: Schema.NullOr(Schema.DateTimeUtc),
  webhook_delivered: Schema.Boolean,
  matching_items: Count.annotations({
    description: "Items of the batch in the status asked for (all without status)"
  }),
  items: Schema.Array(BatchItemOutput),
  has_more: Schema.Boolean,
  next_offset: Schema.NullOr(Count).annotations({
    description: "Pass as offset to see the next page of items; null after the last one"
  }),
  next_step: Schema.String
})
type GetBatchOutput = typeof GetBatchOutput.Type

const batchItemOutput = (result: Api.BatchResult, index: number): BatchItemOutput => {
  const base = {
    index,
    video_id: result.video_id,
    status: result.status,
    job_id: result.job_id,
    error: result.error,
    credits_used: result.credits_used
  }
  if (result.data === undefined) return base
  return {
    ...base,
    video_title: result.data.video_title,
    language: result.data.transcript.language,
    source: result.data.transcript.source,
    character_count: result.data.transcript.text.length
  }
}

const batchNextStep = (status: GetBatchOutput["status"], nextOffset: number | null): string => {
  const more = nextOffset === null ? "" : ` More items: call get_batch again with offset ${nextOffset}.`
  return status === "processing"
    ? `Still running: call get_batch again in a little while.${more}`
    : `The batch is finished and will not change; read a completed video's transcript with get_transcript. A finished batch can be fetched 60 times in 24 hours.${more}`
}

const batchText = (output: GetBatchOutput): string => {
  const { summary } = output
  const header = `Batch ${output.batch_id}: ${output.status}; ${summary.total} videos (${summary.succeeded} succeeded, ${summary.failed} failed, ${summary.processing} processing), ${output.credits_used} credits used.`
  const last = output.items[output.items.length - 1]
  const range =
    output.items.length === 0 || last === undefined
      ? `No items on this page (${output.matching_items} matching).`
      : `Items ${output.items[0]?.index}–${last.index} (${output.items.length} of ${output.matching_items} matching):`
  const lines = output.items.map(
    (item) =>
      `#${item.index} ${item.video_id} ${item.status}${item.language === undefined ? "" : ` ${item.language}/${item.source}`}${item.video_title ? ` "${item.video_title}"` : ""}${item.error === null ? "" : `: ${item.error}`}`
  )
  return [header, range, ...lines, output.next_step].join("\n")
}

export const getBatch = defineTool({
  name: "get_batch",
  title: "Check a batch",
  description: `The state of a batch from run_batch: processing until every video is done, then completed, partial or failed (final). Gives the summary and one page of its videos (${batchPage.default} by default, at most ${batchPage.max}; next_offset reads on; status filters, e.g. failed), each with its status, error or transcript language; read a transcript with get_transcript. Free.`,
  input: GetBatchInput,
  output: GetBatchOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  text: (output) => batchText(output),
  run: (input) =>
    Effect.gen(function* () {
      const operations = yield* AccountOperations
      const batch = yield* operations.batch(input.batch_id)
      const matching = batch.results
        .map((result, index) => ({ result, index }))
        .filter(({ result }) => input.status === undefined || result.status === input.status)
      const page = matching.slice(input.offset, input.offset + input.limit)
      const end = input.offset + page.length
      const nextOffset = end < matching.length ? end : null
      return {
        batch_id: batch.batch_id,
        status: batch.status,
        summary: batch.summary,
        credits_used: batch.credits_used,
        created_at: batch.created_at,
        started_at: batch.started_at,
        completed_at: batch.completed_at,
        webhook_delivered: batch.webhook_delivered,
        matching_items: matching.length,
        items: page.map(({ result, index }) => batchItemOutput(result, index)),
        has_more: nextOffset !== null,
        next_offset: nextOffset,
        next_step: batchNextStep(batch.status, nextOffset)
      }
    })
})
