import { RemoteA2aAgent } from '@adk/a2a';
import { LlmAgent } from '@adk/core';
import { model } from '../_shared/model.js';

/**
 * Where the remote agent lives: the `assistant` app of the same server, which `adk web` and
 * `adk api_server` also serve over A2A at /a2a/{app}. The CLI sets ADK_SERVER_URL to its own
 * address before any app loads; A2A_REMOTE_URL points the pair at any other A2A agent.
 */
const serverUrl = process.env.ADK_SERVER_URL ?? 'http://127.0.0.1:8000';
const remoteUrl = process.env.A2A_REMOTE_URL ?? `${serverUrl}/a2a/assistant`;
const token = process.env.ADK_SERVER_TOKEN;

const remoteAssistant = new RemoteA2aAgent({
  name: 'remote_assistant',
  description: 'A remote agent, reached over A2A, that does arithmetic and tells the time and the weather.',
  url: remoteUrl,
  ...(token ? { clientOptions: { headers: { authorization: `Bearer ${token}` } } } : {}),
});

/**
 * Two agents talking over A2A: this coordinator answers small talk and transfers arithmetic, time
 * and weather questions to `remote_assistant`, which forwards them to the other agent as A2A
 * messages and turns its streamed task updates back into events of this session.
 */
export const rootAgent = new LlmAgent({
  name: 'coordinator',
  description: 'Talks with the user and delegates to a remote agent over A2A.',
  model,
  instruction:
    'Chat with the user. For arithmetic, the time or the weather, transfer to remote_assistant: it is another agent, reached over A2A.',
  subAgents: [remoteAssistant],
});
