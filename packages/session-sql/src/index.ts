export const packageName = '@adk/session-sql';
