import { pickModel } from '@adk/cli';

/**
 * The model every example uses: a real provider when GEMINI_API_KEY / GOOGLE_API_KEY,
 * ANTHROPIC_API_KEY or OPENAI_API_KEY is set (ADK_MODEL picks the model name), otherwise the
 * offline demo model of `@adk/cli`, which says plainly that it is one.
 */
export const model = pickModel();
