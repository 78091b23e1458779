// adk-python's eval routes (served by @adk/eval/server), as the Eval tab uses them.

import { apiFetch } from '../api/auth.js';

export interface EvalContent {
  role?: string;
  parts?: { text?: string; functionCall?: { name: string; args?: Record<string, unknown> } }[];
}

export interface EvalInvocation {
  userContent: EvalContent;
  finalResponse?: EvalContent;
  intermediateData?: {
    toolUses?: { name: string; args?: Record<string, unknown> }[];
    invocationEvents?: { author: string; content?: EvalContent }[];
  };
}

export interface EvalMetricResult {
  metricName: string;
  threshold?: number;
  score?: number | null;
  evalStatus: 1 | 2 | 3;
  details?: { error?: string; note?: string };
}

export interface EvalCaseResult {
  evalSetId: string;
  evalId: string;
  finalEvalStatus: 1 | 2 | 3;
  overallEvalMetricResults: EvalMetricResult[];
  evalMetricResultPerInvocation: {
    actualInvocation: EvalInvocation;
    expectedInvocation?: EvalInvocation;
    evalMetricResults: EvalMetricResult[];
  }[];
}

export interface EvalSetResult {
  evalSetResultId: string;
  evalSetId: string;
  evalCaseResults: EvalCaseResult[];
  creationTimestamp: number;
}

const enc = encodeURIComponent;

async function call<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await apiFetch(path, {
    ...init,
    headers: { 'content-type': 'application/json', ...init?.headers },
  });
  const text = await res.text();
  if (!res.ok) {
    let detail = res.statusText;
    try {
      const body = JSON.parse(text) as { detail?: string };
      if (body.detail) detail = body.detail;
    } catch {}
    throw new Error(`${res.status} ${detail}`);
  }
  return (text ? JSON.parse(text) : undefined) as T;
}

const base = (app: string) => `/apps/${enc(app)}`;
const post = (body: unknown): RequestInit => ({ method: 'POST', body: JSON.stringify(body) });

export const evalApi = {
  listSets: async (app: string) =>
    (await call<{ evalSetIds: string[] }>(`${base(app)}/eval-sets`)).evalSetIds,
  createSet: (app: string, evalSetId: string) =>
    call<unknown>(`${base(app)}/eval-sets`, post({ evalSet: { evalSetId } })),
  listCases: (app: string, set: string) => call<string[]>(`${base(app)}/eval_sets/${enc(set)}/evals`),
  addSession: (app: string, set: string, evalId: string, userId: string, sessionId: string) =>
    call<unknown>(`${base(app)}/eval-sets/${enc(set)}/add-session`, post({ evalId, userId, sessionId })),
  run: async (
    app: string,
    set: string,
    evalCaseIds: string[],
    metrics: { metricName: string; threshold: number }[],
  ) =>
    (
      await call<{ runEvalResults: EvalCaseResult[] }>(
        `${base(app)}/eval-sets/${enc(set)}/run`,
        post({ evalCaseIds, evalMetrics: metrics }),
      )
    ).runEvalResults,
  listResults: async (app: string) =>
    (await call<{ evalResultIds: string[] }>(`${base(app)}/eval-results`)).evalResultIds,
  getResult: (app: string, id: string) => call<EvalSetResult>(`${base(app)}/eval-results/${enc(id)}`),
};

/** The tool calls of an invocation, from either shape adk-python writes. */
export function toolCalls(
  inv: EvalInvocation | undefined,
): { name: string; args?: Record<string, unknown> }[] {
  const data = inv?.intermediateData;
  if (!data) return [];
  if (data.invocationEvents)
    return data.invocationEvents.flatMap((e) =>
      (e.content?.parts ?? []).flatMap((p) => (p.functionCall ? [p.functionCall] : [])),
    );
  return data.toolUses ?? [];
}

export function textOf(content: EvalContent | undefined): string {
  return (content?.parts ?? [])
    .filter((p) => p.text)
    .map((p) => p.text)
    .join('\n');
}
