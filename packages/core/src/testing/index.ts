export const testingEntry = true;
