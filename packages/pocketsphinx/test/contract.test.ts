import { speechToTextContract } from "@verbatim/testkit"
import { PocketsphinxSpeech } from "../src/index.js"
import { baseSettings, bytesInput, clip, fileInput, whenInstalled } from "./support.js"

const welcome = clip("welcome")

whenInstalled(() =>
  speechToTextContract(
    "pocketsphinx on the shipped clip welcome.wav",
    PocketsphinxSpeech.layer(baseSettings),
    {
      clip: {
        audio: () => fileInput(welcome.file, "audio/wav", 5),
        durationMs: welcome.durationMs,
        contentWords: welcome.contentWords,
        minHeard: 6
      },
      notAudio: () => bytesInput(new TextEncoder().encode("this is a text file, not audio at all\n")),
      unsupported: [
        { options: { language: "fr" }, option: "language" },
        { options: { language: "pt-BR" }, option: "language" },
        { options: { codeSwitching: true }, option: "codeSwitching" },
        { options: { medicalMode: true }, option: "medicalMode" },
        { options: { translateTo: "de" }, option: "translateTo" },
        { options: { speakerLabels: true }, option: "speakerLabels" },
        { options: { speakerLabels: true, speakersExpected: 2 }, option: "speakerLabels" },
        { options: { speakerId: true }, option: "speakerLabels" },
        { options: { multichannel: true }, option: "multichannel" },
        { options: { topicDetection: true }, option: "topicDetection" },
        { options: { summarization: true }, option: "summarization" },
        { options: { contentModeration: true }, option: "contentModeration" },
        { options: { piiRedaction: true }, option: "piiRedaction" },
        { options: { profanityFiltering: true }, option: "profanityFiltering" },
        { options: { sentimentAnalysis: true }, option: "sentimentAnalysis" },
        { options: { customFormatting: true }, option: "customFormatting" }
      ],
      intelligence: [],
      timeoutMs: 30_000
    }
  )
)
