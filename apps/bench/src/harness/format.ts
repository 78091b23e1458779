export function fmt(value: number, digits = 1): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US');
  return value.toFixed(digits);
}

export function fmtMs(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value < 10 ? `${value.toFixed(2)} ms` : `${fmt(value)} ms`;
}

export function fmtRatio(value: number): string {
  return Number.isFinite(value) ? `${value < 10 ? value.toFixed(2) : value.toFixed(1)}×` : 'n/a';
}

export function fmtBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return 'n/a';
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} kB`;
  return `${bytes} B`;
}
