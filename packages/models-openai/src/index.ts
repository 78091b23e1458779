export const packageName = '@adk/models-openai';
