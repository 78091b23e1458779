export const packageName = '@adk/models-gemini';
