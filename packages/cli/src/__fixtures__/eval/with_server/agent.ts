// The weather agent of `../weather` with its tool in a toolset that starts a child process on first
// use, as an MCP toolset over stdio does: `adk eval` must close it, or the child keeps it running.
import { type ChildProcess, spawn } from 'node:child_process';
import { type BaseTool, BaseToolset, LlmAgent } from '@adk/core';
import { rootAgent as weather } from '../weather/agent.js';

class ServerToolset extends BaseToolset {
  private child: ChildProcess | undefined;

  getTools(): BaseTool[] {
    this.child ??= spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'pipe' });
    return weather.tools as BaseTool[];
  }

  override async close(): Promise<void> {
    this.child?.kill();
    this.child = undefined;
    process.stderr.write('toolset closed\n');
  }
}

export const rootAgent = new LlmAgent({
  name: 'weather',
  instruction: weather.instruction,
  model: weather.model,
  tools: [new ServerToolset()],
});
