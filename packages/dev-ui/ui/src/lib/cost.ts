/** USD with enough digits for one model call (fractions of a cent); `—` when unknown. */
export function formatCost(usd: number | undefined): string {
  if (usd === undefined || !Number.isFinite(usd)) return '—';
  if (usd === 0) return '$0';
  if (usd < 0.01) return `$${usd.toPrecision(2)}`;
  return `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
}

/** A token count with thousands separators. */
export function formatTokens(n: number | undefined): string {
  return (n ?? 0).toLocaleString('en-US');
}
