export const packageName = '@adk/models-claude';
