// Child process: the @a2a-js/sdk server (its JSON-RPC transport on Express, as its README sets it
// up) with the trivial benchmark agent. Prints BENCH_READY with its URL and serves until killed.
import type { AddressInfo } from 'node:net';
import { type AgentCard, type Part, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import express from 'express';
import { emitReady, reportCpuOnSignals } from './protocol.js';

const textPart = (value: string): Part => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

/** The trivial agent: a task that goes submitted → working → one text artifact → completed. */
class EchoExecutor implements AgentExecutor {
  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = context;
    const incoming = context.userMessage.parts[0]?.content;
    const text = incoming?.$case === 'text' ? incoming.value : '';
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: {
          state: TaskState.TASK_STATE_SUBMITTED,
          message: undefined,
          timestamp: new Date().toISOString(),
        },
        artifacts: [],
        history: [context.userMessage],
        metadata: undefined,
      }),
    );
    const status = (state: TaskState) => ({
      taskId,
      contextId,
      status: { state, message: undefined, timestamp: new Date().toISOString() },
      metadata: undefined,
    });
    bus.publish(AgentEvent.statusUpdate(status(TaskState.TASK_STATE_WORKING)));
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: 'answer',
          name: 'answer',
          description: '',
          parts: [textPart(`echo: ${text}`)],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    bus.publish(AgentEvent.statusUpdate(status(TaskState.TASK_STATE_COMPLETED)));
    bus.finished();
  }

  async cancelTask(): Promise<void> {}
}

const port = 0;
const app = express();
const server = app.listen(port, '127.0.0.1', () => {
  const { port: actual } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${actual}/`;
  const card = {
    name: 'bench-echo',
    description: 'Echoes the message as a task artifact.',
    version: '1.0.0',
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined,
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
  } as unknown as AgentCard;
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new EchoExecutor());
  app.use('/', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  reportCpuOnSignals();
  emitReady({ url });
});
