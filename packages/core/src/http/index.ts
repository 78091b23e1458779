export const httpEntry = true;
