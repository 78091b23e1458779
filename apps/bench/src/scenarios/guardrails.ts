import { type Guardrail, InMemorySessionService, LlmAgent, Runner, userContent } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { budgetGuardrail, piiGuardrail, promptLeakGuardrail, unicodeGuardrail } from '@adk/guardrails';
import { fmtMs } from '../harness/format.js';
import { percentile } from '../harness/stats.js';
import { newReport, type Scenario } from '../harness/types.js';

const TARGET_MS = 0.1;

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
    report.notes.push(
      "Mastra's PII processor (`PIIDetector` of `@mastra/core/processors`) is model-based: it asks a detection model on every message, so there is no deterministic counterpart to run on the same inputs; not compared.",
    );
    return report;
  },
};
