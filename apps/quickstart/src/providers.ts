import type { Llm } from '@adk/core';

export interface LiveModel {
  model: Llm | string;
  label: string;
  envVar: string;
}

/** A real provider when its key is set (provider packages are wired in once they land). */
export async function pickProviderModel(): Promise<LiveModel | undefined> {
  return undefined;
}
