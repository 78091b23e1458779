export const packageName = '@adk/plugins';
