// zod schemas of the eval JSON shapes (camelCase, after key conversion), built on first use.
import { lazyZod } from '@adk/core';

export const evalSchemas = lazyZod((z) => {
  const record = z.record(z.string(), z.unknown());
  // Content as google-genai accepts it: role and most fields optional, unknown fields kept.
  const functionCall = z.looseObject({
    id: z
      .string()
      .nullish()
      .transform((v) => v ?? ''),
    name: z.string(),
    args: record.nullish().transform((v) => v ?? {}),
  });
  const functionResponse = z.looseObject({
    id: z
      .string()
      .nullish()
      .transform((v) => v ?? ''),
    name: z
      .string()
      .nullish()
      .transform((v) => v ?? ''),
    response: record.nullish().transform((v) => v ?? {}),
  });
  const part = z.looseObject({
    text: z.string().nullish(),
    thought: z.boolean().nullish(),
    functionCall: functionCall.nullish(),
    functionResponse: functionResponse.nullish(),
  });
  const content = z.looseObject({
    role: z.string().nullish(),
    parts: z
      .array(part)
      .nullish()
      .transform((v) => v ?? []),
  });
  const rubric = z.looseObject({
    rubricId: z.string(),
    rubricContent: z.looseObject({ textProperty: z.string().nullish() }),
    description: z.string().nullish(),
    type: z.string().nullish(),
  });
  const rubricScore = z.looseObject({
    rubricId: z.string(),
    rationale: z.string().nullish(),
    score: z.number().nullish(),
  });
  const intermediateData = z.looseObject({
    toolUses: z.array(functionCall).default([]),
    toolResponses: z.array(functionResponse).default([]),
    intermediateResponses: z.array(z.tuple([z.string(), z.array(part)])).default([]),
  });
  const invocationEvents = z.looseObject({
    invocationEvents: z.array(
      z.looseObject({
        author: z.string(),
        content: content.nullish(),
        groundingMetadata: z.unknown().optional(),
        usageMetadata: record.nullish(),
        modelVersion: z.string().nullish(),
      }),
    ),
  });
  const invocation = z.looseObject({
    invocationId: z.string().default(''),
    userContent: content,
    finalResponse: content.nullish(),
    intermediateData: z.union([invocationEvents, intermediateData]).nullish(),
    creationTimestamp: z.number().default(0),
    rubrics: z.array(rubric).nullish(),
    duration: z.number().nullish(),
  });
  const sessionInput = z.looseObject({
    appName: z.string(),
    userId: z.string(),
    sessionId: z.string().nullish(),
    state: record.default({}),
  });
  const conversationScenario = z.looseObject({
    startingPrompt: z.string(),
    conversationPlan: z.string(),
    userPersona: z.union([z.string(), record]).nullish(),
  });
  const evalCase = z
    .looseObject({
      evalId: z.string(),
      conversation: z.array(invocation).nullish(),
      conversationScenario: conversationScenario.nullish(),
      sessionInput: sessionInput.nullish(),
      creationTimestamp: z.number().default(0),
      rubrics: z.array(rubric).nullish(),
      finalSessionState: record.nullish(),
    })
    .refine((c) => (c.conversation == null) !== (c.conversationScenario == null), {
      message: 'Exactly one of conversation and conversation_scenario must be provided in an EvalCase.',
    });
  const evalSet = z.looseObject({
    evalSetId: z.string(),
    name: z.string().nullish(),
    description: z.string().nullish(),
    evalCases: z.array(evalCase),
    creationTimestamp: z.number().default(0),
  });

  // Legacy formats. One turn: a query, the expected tool calls and the reference answer.
  const legacyTurn = z.looseObject({
    query: z.string(),
    reference: z.string().default(''),
    expectedToolUse: z
      .array(z.looseObject({ toolName: z.string(), toolInput: record.default({}) }))
      .default([]),
    expectedIntermediateAgentResponses: z
      .array(z.looseObject({ author: z.string(), text: z.string() }))
      .default([]),
  });
  // The oldest `.test.json` (adk-python's AgentEvaluator): the turns of one conversation.
  const legacyTurns = z.array(legacyTurn).min(1);
  // Legacy `.test.json` of named cases: a list of cases, each a list of turns.
  const legacyCase = z.looseObject({
    name: z.string(),
    data: z.array(legacyTurn),
    initialSession: z
      .looseObject({
        state: record.optional(),
        appName: z.string().optional(),
        userId: z.string().optional(),
      })
      .nullish(),
  });
  const legacyEvalSet = z.array(legacyCase);

  const judgeModelOptions = z.looseObject({
    judgeModel: z.string().default('gemini-2.5-flash'),
    judgeModelConfig: record.nullish(),
    numSamples: z.number().int().positive().default(5),
  });
  const matchType = z.union([z.string(), z.number()]).transform((v, ctx) => {
    const names = ['EXACT', 'IN_ORDER', 'ANY_ORDER'] as const;
    if (typeof v === 'number' && names[v]) return names[v];
    const normalized = String(v).trim().toUpperCase().replace(/[- ]/g, '_');
    const found = names.find((n) => n === normalized);
    if (found) return found;
    ctx.addIssue({
      code: 'custom',
      message: `unknown match_type ${JSON.stringify(v)} (EXACT, IN_ORDER or ANY_ORDER)`,
    });
    return z.NEVER;
  });
  const criterion = z.looseObject({
    threshold: z.number(),
    judgeModelOptions: judgeModelOptions.optional(),
    rubrics: z.array(rubric).optional(),
    matchType: matchType.optional(),
    evaluateIntermediateNlResponses: z.boolean().optional(),
  });
  const evalConfig = z.looseObject({
    criteria: z.record(z.string(), z.unknown()).default({}),
    customMetrics: z
      .record(
        z.string(),
        z.looseObject({
          codeConfig: z.looseObject({ name: z.string() }),
          description: z.string().optional(),
        }),
      )
      .nullish(),
    userSimulatorConfig: record.nullish(),
  });

  const evalStatus = z.union([z.literal(1), z.literal(2), z.literal(3)]);
  const evalMetric = z.looseObject({
    metricName: z.string(),
    threshold: z.number().nullish(),
    criterion: criterion.nullish(),
    customFunctionPath: z.string().nullish(),
  });
  const evalMetricResult = evalMetric.extend({
    score: z.number().nullish(),
    evalStatus,
    details: z.looseObject({ rubricScores: z.array(rubricScore).nullish() }).default({}),
  });
  const evalCaseResult = z.looseObject({
    evalSetFile: z.string().default(''),
    evalSetId: z.string().default(''),
    evalId: z.string().default(''),
    finalEvalStatus: evalStatus,
    evalMetricResults: z.array(z.tuple([evalMetric, evalMetricResult])).default([]),
    overallEvalMetricResults: z.array(evalMetricResult),
    evalMetricResultPerInvocation: z.array(
      z.looseObject({
        actualInvocation: invocation,
        expectedInvocation: invocation.nullish(),
        evalMetricResults: z.array(evalMetricResult).default([]),
      }),
    ),
    sessionId: z.string(),
    sessionDetails: record.nullish(),
    userId: z.string().nullish(),
  });
  const evalSetResult = z.looseObject({
    evalSetResultId: z.string(),
    evalSetResultName: z.string().nullish(),
    evalSetId: z.string(),
    evalCaseResults: z.array(evalCaseResult).default([]),
    creationTimestamp: z.number().default(0),
  });

  return {
    content,
    evalSet,
    evalCase,
    legacyEvalSet,
    legacyTurns,
    evalConfig,
    criterion,
    evalSetResult,
    evalCaseResult,
  };
});
