import { type Clock, systemClock } from './clock.js';

export type CircuitState = 'closed' | 'open' | 'half-open';

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit (default 5). */
  failureThreshold?: number;
  /** How long the circuit stays open before one trial call is let through (default 30 s). */
  resetTimeoutMs?: number;
  clock?: Clock;
  onStateChange?: (from: CircuitState, to: CircuitState) => void;
}

/**
 * A circuit breaker for one dependency. Closed: calls go through and consecutive failures are
 * counted; at the threshold it opens. Open: calls are refused until `resetTimeoutMs` has passed,
 * then it is half-open. Half-open: one trial call goes through; its success closes the circuit,
 * its failure opens it again. A trial whose outcome is never reported is given up after
 * `resetTimeoutMs`, so the circuit cannot stay stuck.
 */
export class CircuitBreaker {
  private current: CircuitState = 'closed';
  private failures = 0;
  private openedAt = 0;
  private trialStartedAt: number | undefined;
  private readonly threshold: number;
  private readonly resetTimeoutMs: number;
  private readonly clock: Clock;
  private readonly onStateChange: ((from: CircuitState, to: CircuitState) => void) | undefined;

  constructor(options: CircuitBreakerOptions = {}) {
    this.threshold = Math.max(1, options.failureThreshold ?? 5);
    this.resetTimeoutMs = Math.max(0, options.resetTimeoutMs ?? 30_000);
    this.clock = options.clock ?? systemClock;
    this.onStateChange = options.onStateChange;
  }

  /** The state now (an open circuit whose timeout has passed reads as half-open). */
  get state(): CircuitState {
    if (this.current === 'open' && this.clock.now() - this.openedAt >= this.resetTimeoutMs) {
      this.transition('half-open');
    }
    return this.current;
  }

  get consecutiveFailures(): number {
    return this.failures;
  }

  /**
   * Whether a call may go through now. In the half-open state this takes the single trial slot,
   * so call it only right before making the call.
   */
  tryAcquire(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open') return false;
    const now = this.clock.now();
    if (this.trialStartedAt !== undefined && now - this.trialStartedAt < this.resetTimeoutMs) return false;
    this.trialStartedAt = now;
    return true;
  }

  recordSuccess(): void {
    this.failures = 0;
    this.trialStartedAt = undefined;
    if (this.current !== 'closed') this.transition('closed');
  }

  recordFailure(): void {
    this.failures++;
    this.trialStartedAt = undefined;
    if (this.current === 'half-open' || (this.current === 'closed' && this.failures >= this.threshold)) {
      this.openedAt = this.clock.now();
      this.transition('open');
    } else if (this.current === 'open') {
      this.openedAt = this.clock.now();
    }
  }

  private transition(to: CircuitState): void {
    const from = this.current;
    if (from === to) return;
    this.current = to;
    this.onStateChange?.(from, to);
  }
}
