export const label: string = 'v1';
