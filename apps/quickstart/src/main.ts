import { contentText, InMemorySessionService, Runner, userContent } from '@adk/core';
import { createAgent, offlineModel } from './agent.js';
import { pickProviderModel } from './providers.js';

const questions =
  process.argv.slice(2).length > 0
    ? [process.argv.slice(2).join(' ')]
    : ['What is the weather in Paris?', 'And in Tokyo?'];

const live = pickProviderModel();
if (live) console.log(`model: ${live.model} (live, key from ${live.envVar})`);
else
  console.log(
    'model: OFFLINE SCRIPTED MODEL (no API key set: GEMINI_API_KEY, ANTHROPIC_API_KEY or OPENAI_API_KEY)',
  );

const runner = new Runner({
  appName: 'quickstart',
  agent: createAgent(live?.model ?? offlineModel()),
  sessionService: new InMemorySessionService(),
  autoCreateSession: true,
  ...(live ? { models: live.registry } : {}),
});

for (const question of questions) {
  console.log(`\nuser: ${question}`);
  for await (const event of runner.run({
    userId: 'demo',
    sessionId: 'quickstart',
    newMessage: userContent(question),
  })) {
    if (event.author === 'user') continue;
    for (const part of event.content?.parts ?? []) {
      if (part.functionCall)
        console.log(`  → ${part.functionCall.name}(${JSON.stringify(part.functionCall.args)})`);
      if (part.functionResponse) console.log(`  ← ${JSON.stringify(part.functionResponse.response)}`);
    }
    const text = contentText(event.content);
    if (text) console.log(`${event.author}: ${text}`);
    if (event.errorCode) console.log(`error (${event.errorCode}): ${event.errorMessage}`);
  }
}
