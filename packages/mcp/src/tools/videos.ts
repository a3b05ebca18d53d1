/**
 * get_video_info: a free look at a video before paying anything (GET /videos/info): title,
 * channel, duration, caption languages, translation targets, each mode's price for this account
 * and the transcripts it owns already.
 */
import { Api, Plan } from "@verbatim/domain"
import { Effect, Schema } from "effect"
import { AccountOperations } from "../operations.js"
import { defineTool } from "../tool.js"
import { plural, VideoInput } from "./shared.js"

const VideoInfoOutput = Schema.Struct({ ...Api.VideoInfo.fields, next_step: Schema.String })
type VideoInfoOutput = typeof VideoInfoOutput.Type

const nextStep = (info: Api.VideoInfo): string => {
  const byDefault = info.prices.find((price) => price.mode === info.default_mode)
  if (info.owned.length > 0) {
    return `The user owns ${info.owned.map((o) => `${o.language}/${o.source}`).join(", ")}: read it with get_transcript (video_id "${info.video_id}"), free.`
  }
  if (byDefault?.available === true && byDefault.source !== "asr") {
    return `transcribe_video with video "${info.video_id}" serves ${byDefault.source} captions in ${byDefault.language} for ${plural(byDefault.credits, "credit")}.`
  }
  const captions = info.prices.find(
    (price) => price.available && price.source !== null && price.source !== "asr"
  )
  const asr = info.prices.find((price) => price.available && price.source === "asr")
  if (captions !== undefined && (info.exceeds_max_duration || asr === undefined)) {
    return `transcribe_video with video "${info.video_id}" and mode "${captions.mode}" serves ${captions.source} captions${captions.language === null ? "" : ` in ${captions.language}`} for ${plural(captions.credits, "credit")}${info.exceeds_max_duration ? `; speech recognition takes videos up to ${Plan.maxAsrDurationMinutes} minutes, and this one is longer` : ""}.`
  }
  if (info.exceeds_max_duration) {
    return `The video is too long: speech recognition takes videos up to ${Plan.maxAsrDurationMinutes} minutes, and it has no captions to serve, so it cannot be transcribed. Tell the user and stop; no call will succeed for it.`
  }
  if (asr === undefined) {
    return "No mode can transcribe this video now (every mode is unavailable): tell the user and stop."
  }
  return `The video has no captions the default mode (${info.default_mode}) serves: speech recognition (mode "${asr.mode}") costs ${plural(asr.credits, "credit")}. Ask the user whether to pay that; only if they agree, call transcribe_video with video "${info.video_id}", mode "${asr.mode}" and confirm_asr: true.`
}

const infoText = (output: VideoInfoOutput): string => {
  const minutes =
    output.duration_seconds === null
      ? "unknown length"
      : `about ${plural(Math.max(1, Math.round(output.duration_seconds / 60)), "minute")}`
  const list = (languages: ReadonlyArray<string>) => (languages.length === 0 ? "none" : languages.join(", "))
  return [
    `${output.title ?? output.video_id} (video ${output.video_id}${output.channel_title === null ? "" : `, channel ${output.channel_title}`}), ${minutes}.`,
    `Captions: manual ${list(output.manual_caption_languages)}; auto ${list(output.auto_caption_languages)}. Translatable into: ${list(output.translation_languages)}.`,
    ...output.prices.map(
      (price) =>
        `- ${price.mode}: ${price.available ? `${price.source}${price.language === null ? "" : ` ${price.language}`}, ${plural(price.credits, "credit")}${price.owned ? " (owned)" : ""}` : "not available"}${price.mode === output.default_mode ? " [default]" : ""}`
    ),
    output.next_step
  ].join("\n")
}

export const getVideoInfo = defineTool({
  name: "get_video_info",
  title: "Look at a video before paying",
  description:
    "A video's title, channel, duration, caption languages (manual and auto), the languages its captions translate into, what each mode would charge this user and which transcripts they own already. Free; nothing is started or stored. Use it before transcribe_video.",
  input: Schema.Struct({ video: VideoInput }),
  output: VideoInfoOutput,
  annotations: { readOnlyHint: true, openWorldHint: true },
  text: (output) => infoText(output),
  run: (input) =>
    Effect.gen(function* () {
      const operations = yield* AccountOperations
      const info = yield* operations.videoInfo({ video: input.video })
      return { ...info, next_step: nextStep(info) }
    })
})
