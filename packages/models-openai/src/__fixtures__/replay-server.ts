// Fixtures of this package, served by core's replay server.
import { fixtureReader } from '@adk/core/testing';

export {
  caught,
  collect,
  type RecordedRequest,
  type ReplayResponse,
  type ReplayServer,
  startReplayServer,
} from '@adk/core/testing';

export const { fixture, jsonFixture, sseFixture } = fixtureReader(new URL('./', import.meta.url));
