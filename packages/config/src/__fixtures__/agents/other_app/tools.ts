export const secret = 'outside the app';
