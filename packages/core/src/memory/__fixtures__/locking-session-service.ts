import { InMemorySessionService, type RunLock, type SessionKey } from '../../index.js';

/**
 * In-memory sessions with a run lock (one holder per session, others wait), as a shared-database
 * store has: background memory jobs write only under it.
 */
export class LockingSessionService extends InMemorySessionService {
  private readonly held = new Map<string, Promise<void>>();

  async acquireRunLock(key: SessionKey): Promise<RunLock> {
    const k = `${key.appName}/${key.userId}/${key.sessionId}`;
    for (let h = this.held.get(k); h; h = this.held.get(k)) await h;
    let release = () => {};
    this.held.set(
      k,
      new Promise<void>((resolve) => {
        release = resolve;
      }),
    );
    return {
      release: async () => {
        this.held.delete(k);
        release();
      },
    };
  }
}
