import { type Guardrail, InMemorySessionService, LlmAgent, Runner, userContent } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { budgetGuardrail, piiGuardrail, promptLeakGuardrail, unicodeGuardrail } from '@adk/guardrails';
import { mastraScriptedModel } from '../frameworks/mastra-model.js';
import { fmtMs, fmtRatio } from '../harness/format.js';
import { percentile } from '../harness/stats.js';
import { newReport, type Scenario } from '../harness/types.js';

const TARGET_MS = 0.1;
/** The latency a small hosted detection model adds per call (stated in the report). */
const MODEL_LATENCY_MS = 300;

// A support conversation: each message carries personal data, the answer quotes some back.
const MESSAGES = [
  'Hi, my card 4111 1111 1111 1111 was charged twice for order 18273, can you check? Reach me at ana@example.com.',
  'The second charge is from 2024-03-15, I also called +44 20 7946 0958 but nobody answered.',
  'Please send the refund to IBAN DE89 3704 0044 0532 0130 00, thanks a lot for your help today.',
  'Never mind the phone, what is the status of my refund and when will it arrive on my account?',
];

/** Wraps guardrails so the time inside their checks is measured too. */
function timed(guardrails: Guardrail[], spent: { ms: number }): Guardrail[] {
  return guardrails.map((g) => ({
    ...g,
    name: g.name,
    ...(g.points ? { points: g.points } : {}),
    async check(subject, context) {
      const start = performance.now();
      try {
        return await g.check(subject, context);
      } finally {
        spent.ms += performance.now() - start;
      }
    },
  }));
}

function agent(guarded: boolean, spent: { ms: number }): LlmAgent {
  const model = new ScriptedModel({
    respond: (request) => ({
      content: {
        role: 'model',
        parts: [
          {
            text: `Thanks. I see a charge on the card ending 1111 for ${request.contents.length} messages so far.`,
          },
        ],
      },
      usageMetadata: { promptTokenCount: 120, candidatesTokenCount: 30, totalTokenCount: 150 },
    }),
  });
  const instruction =
    'You are the billing assistant of Example Corp. Help with charges and refunds; never give legal advice.';
  if (!guarded) return new LlmAgent({ name: 'plain', model, instruction });
  const budget = budgetGuardrail({ scope: 'session', maxTokens: 100_000_000 });
  return new LlmAgent({
    name: 'guarded',
    model,
    instruction,
    inputGuardrails: timed([unicodeGuardrail(), piiGuardrail(), budget], spent),
    outputGuardrails: timed([piiGuardrail({ action: 'mask' }), promptLeakGuardrail(), budget], spent),
  });
}

/** The PII values in the messages, as a careful detection model would report them. */
const PII_VALUES: { type: string; value: string }[] = [
  { type: 'credit-card', value: '4111 1111 1111 1111' },
  { type: 'email', value: 'ana@example.com' },
  { type: 'phone', value: '+44 20 7946 0958' },
  { type: 'iban', value: 'DE89 3704 0044 0532 0130 00' },
];

/**
 * Mastra's model-based PII processor (`PIIDetector`) on the same messages: its detection agent is
 * driven by a scripted model that answers at once with the right detections (no `redacted_content`,
 * so Mastra redacts itself), so the time is Mastra's own cost with zero model latency; a second
 * short run adds `delayMs` per detection call.
 */
async function mastraPii(turns: number, delayMs: number): Promise<number[]> {
  const { Agent } = await import('@mastra/core/agent');
  const { PIIDetector } = await import('@mastra/core/processors');
  const detectorModel = mastraScriptedModel(
    (prompt) => {
      const last = prompt.at(-1)?.content;
      const text = Array.isArray(last)
        ? last.map((part: { text?: string }) => part.text ?? '').join('')
        : String(last ?? '');
      const content = text.slice(text.indexOf('Content: "') + 10, text.lastIndexOf('"'));
      const detections = PII_VALUES.filter((p) => content.includes(p.value)).map((p) => {
        const start = content.indexOf(p.value);
        return { ...p, confidence: 0.98, start, end: start + p.value.length, redacted_value: null };
      });
      return {
        text: JSON.stringify({
          categories: [...new Set(detections.map((d) => d.type))].map((type) => ({ type, score: 0.98 })),
          detections,
          redacted_content: null,
        }),
      };
    },
    { delayMs },
  );
  const detector = new PIIDetector({ model: detectorModel as never, strategy: 'redact' });
  const samples: number[] = [];
  const processInput = detector.processInput.bind(detector);
  detector.processInput = async (args) => {
    const start = performance.now();
    try {
      return await processInput(args);
    } finally {
      samples.push(performance.now() - start);
    }
  };
  const agent = new Agent({
    id: 'guarded',
    name: 'guarded',
    instructions:
      'You are the billing assistant of Example Corp. Help with charges and refunds; never give legal advice.',
    model: mastraScriptedModel(() => ({
      text: 'Thanks. I see a charge on the card ending 1111.',
    })) as never,
    inputProcessors: [detector],
  });
  // Mastra logs every redaction with console.info; keep the bench's output readable.
  const info = console.info;
  console.info = () => {};
  try {
    for (let i = -Math.min(50, turns); i < turns; i++) {
      await agent.generate(MESSAGES[Math.abs(i) % MESSAGES.length] as string);
    }
  } finally {
    console.info = info;
  }
  if (detectorModel.calls < turns)
    throw new Error(`PIIDetector asked its model ${detectorModel.calls} times for ${turns} turns`);
  return samples.slice(Math.min(50, turns));
}

/** 12. What the deterministic built-in guardrails (PII, unicode, prompt leak, budget) add to a turn. */
export const guardrailsScenario: Scenario = {
  id: 'guardrails',
  title: '12. Guardrails',
  async run(config) {
    const report = newReport(this.id, this.title);
    const turns = config.quick ? 200 : 4000;
    const sessionTurns = 20;
    const spent = { ms: 0 };
    const runners = [false, true].map(
      (guarded) =>
        new Runner({
          appName: 'bench',
          agent: agent(guarded, spent),
          sessionService: new InMemorySessionService(),
          autoCreateSession: true,
        }),
    );
    const times: [number[], number[]] = [[], []];
    const inChecks: number[] = [];
    config.log(`  ${turns} turns with and without the built-in guardrails, interleaved`);
    // Warm-up, then interleaved turns (same message, same session length) so drift hits both alike.
    for (let i = -200; i < turns; i++) {
      const message = userContent(MESSAGES[Math.abs(i) % MESSAGES.length] as string);
      const sessionId = `s${Math.floor((i + 200) / sessionTurns)}`;
      for (const which of i % 2 === 0 ? [0, 1] : [1, 0]) {
        const before = spent.ms;
        const start = performance.now();
        for await (const _ of (runners[which] as Runner).run({
          userId: 'u',
          sessionId,
          newMessage: message,
        })) {
          // drain
        }
        const ms = performance.now() - start;
        if (i < 0) continue;
        (times[which] as number[]).push(ms);
        if (which === 1) inChecks.push(spent.ms - before);
      }
    }
    const plain = percentile(times[0], 50);
    const guarded = percentile(times[1], 50);
    const added = guarded - plain;
    const checks = percentile(inChecks, 50);
    report.tables.push({
      caption: `${turns} turns each (sessions of ${sessionTurns} turns, in-memory store, a scripted model answering at once), with and without unicode + PII on the message, PII (mask) + prompt leak on the answer, and a session budget on both. Messages carry a card number, an email, a phone number and an IBAN.`,
      headers: ['agent', 'turn p50', 'turn p99', 'inside the checks p50'],
      rows: [
        ['plain', fmtMs(plain), fmtMs(percentile(times[0], 99)), '—'],
        ['with built-in guardrails', fmtMs(guarded), fmtMs(percentile(times[1], 99)), fmtMs(checks)],
      ],
    });
    report.checks.push({
      scenario: report.title,
      label: 'deterministic built-ins added per turn, p50 (guarded p50 − plain p50)',
      target: `≤ ${TARGET_MS} ms`,
      measured: `${fmtMs(added)} (${fmtMs(checks)} inside the checks)`,
      pass: config.quick ? undefined : added <= TARGET_MS,
    });
    // Mastra's PII processor on the same messages.
    const mastraTurns = config.quick ? 20 : 400;
    const delayedTurns = config.quick ? 3 : 20;
    try {
      config.log(
        `  Mastra PIIDetector: ${mastraTurns} turns, then ${delayedTurns} with ${MODEL_LATENCY_MS} ms model latency`,
      );
      const instant = await mastraPii(mastraTurns, 0);
      const delayed = await mastraPii(delayedTurns, MODEL_LATENCY_MS);
      const mastraP50 = percentile(instant, 50);
      const delayedP50 = percentile(delayed, 50);
      report.tables.push({
        caption: `The same four messages through Mastra's PII processor (\`PIIDetector\` of \`@mastra/core/processors\`, strategy redact, on a Mastra \`Agent\`'s input): it asks a detection model on every message. Its model here is a scripted one answering at once with the right detections, so the first row is Mastra's own cost with **zero model latency**; the second adds a fixed ${MODEL_LATENCY_MS} ms per detection call (a small hosted model). Ours makes no model call: the time inside all our checks (unicode, PII, budget on the message; PII, leak, budget on the answer).`,
        headers: ['PII check', 'per turn p50', 'per turn p99', '÷ ours'],
        rows: [
          ['ADK built-ins (time inside the checks)', fmtMs(checks), fmtMs(percentile(inChecks, 99)), '1×'],
          [
            'Mastra PIIDetector, model answering at once',
            fmtMs(mastraP50),
            fmtMs(percentile(instant, 99)),
            fmtRatio(mastraP50 / checks),
          ],
          [
            `Mastra PIIDetector, ${MODEL_LATENCY_MS} ms model latency`,
            fmtMs(delayedP50),
            fmtMs(percentile(delayed, 99)),
            fmtRatio(delayedP50 / checks),
          ],
        ],
      });
      report.checks.push({
        scenario: report.title,
        label:
          "Mastra PIIDetector p50 ÷ our built-in checks p50, same messages (Mastra's model answering at once)",
        target: 'printed',
        pass: undefined,
        measured: `${fmtRatio(mastraP50 / checks)} (${fmtMs(mastraP50)} vs ${fmtMs(checks)}; with ${MODEL_LATENCY_MS} ms model latency ${fmtRatio(delayedP50 / checks)})`,
      });
    } catch (error) {
      report.notes.push(`**Error** running Mastra's PIIDetector: ${(error as Error).message}`);
    }
    return report;
  },
};
