export const packageName = '@adk/core';
