import {
  InMemorySessionService,
  JoinNode,
  LogLevel,
  type NodeContext,
  Runner,
  setLogLevel,
  Workflow,
} from '@google/adk';
import { type WorkflowCounters, type WorkflowDriver, workflowFunctions } from './workflow-graph.js';

/** The same graph on @google/adk 2.0's `Workflow`, run by its `Runner` (in-memory sessions). */
export function createGoogleWorkflowDriver(): WorkflowDriver {
  setLogLevel(LogLevel.ERROR);
  const counters: WorkflowCounters = { nodeRuns: 0, lastOutput: undefined };
  const f = workflowFunctions(counters);
  type Fn = (ctx: NodeContext, input: unknown) => unknown;
  const workflow = new Workflow({
    name: 'bench_workflow',
    edges: [
      [
        'START',
        f.prepare as Fn,
        f.branches as Fn[],
        new JoinNode({ name: 'join' }),
        f.merge as Fn,
        f.check as unknown as Fn,
        { ok: f.finish as Fn },
      ],
    ],
  });
  const sessionService = new InMemorySessionService();
  const runner = new Runner({ appName: 'bench', agent: workflow, sessionService });
  return {
    counters,
    async openSession(sessionId) {
      await sessionService.createSession({ appName: 'bench', userId: 'u', sessionId });
      return async (text) => {
        let output: unknown;
        for await (const event of runner.runAsync({
          userId: 'u',
          sessionId,
          newMessage: { role: 'user', parts: [{ text }] },
        })) {
          if (event.errorCode)
            throw new Error(`@google/adk error event: ${event.errorCode} ${event.errorMessage}`);
          if (event.output !== undefined) output = event.output;
        }
        return output;
      };
    },
  };
}
