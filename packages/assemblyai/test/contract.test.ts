import { speechToTextContract } from "@verbatim/testkit"
import { layerWithStandIn } from "../src/testing.js"
import { clip, notAudio, sentence } from "./support.js"

speechToTextContract(
  "assemblyai, against its local stand-in",
  layerWithStandIn({ recognise: () => sentence }),
  {
    clip: {
      audio: clip,
      durationMs: 3000,
      contentWords: ["hello", "world", "test", "speech", "engine", "word"],
      minHeard: 5
    },
    notAudio,
    unsupported: [
      { options: { language: "zu" }, option: "language" },
      { options: { translateTo: "zu" }, option: "translateTo" },
      { options: { language: "fr", sentimentAnalysis: true }, option: "sentimentAnalysis" },
      { options: { language: "ja", topicDetection: true }, option: "topicDetection" },
      { options: { summarization: true, autoPunctuation: false }, option: "summarization" }
    ],
    intelligence: [
      { options: { summarization: true }, fields: ["summary"] },
      { options: { topicDetection: true }, fields: ["topics", "auto_highlights", "entities"] },
      { options: { contentModeration: true }, fields: ["content_safety"] },
      { options: { sentimentAnalysis: true }, fields: ["sentiment"] },
      {
        options: {
          summarization: true,
          topicDetection: true,
          contentModeration: true,
          sentimentAnalysis: true
        },
        fields: ["summary", "topics", "auto_highlights", "entities", "content_safety", "sentiment"]
      },
      { options: { piiRedaction: true, sentimentAnalysis: true, speakerLabels: true }, fields: ["sentiment"] }
    ],
    timeoutMs: 20_000
  }
)
