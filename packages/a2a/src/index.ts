export const packageName = '@adk/a2a';
